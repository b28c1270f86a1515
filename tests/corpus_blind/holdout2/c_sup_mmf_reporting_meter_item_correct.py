# corpus: MMF-style trainer: model returns a dict of losses, the trainer backprops their sum, and update_meter stores each reduced loss as .item() floats in a smoothed Meter
# source: https://github.com/facebookresearch/mmf/pull/560
from collections import defaultdict, deque

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmoothedValue:
    def __init__(self, window_size=20):
        self.deque = deque(maxlen=window_size)
        self.total, self.count = 0.0, 0

    def update(self, value, batch_size=1):
        self.deque.append(value * batch_size)
        self.count += batch_size
        self.total += value * batch_size

    @property
    def global_avg(self):
        return self.total / self.count


class Meter:
    def __init__(self):
        self.meters = defaultdict(SmoothedValue)

    def update(self, update_dict, batch_size):
        for k, v in update_dict.items():
            self.meters[k].update(v, batch_size)

    def __str__(self):
        return ", ".join(f"{k}: {m.global_avg:.4f}" for k, m in self.meters.items())


class TwoHeadModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(12, 24), nn.ReLU())
        self.cls_head, self.reg_head = nn.Linear(24, 4), nn.Linear(24, 1)

    def forward(self, sample):
        h = self.trunk(sample["x"])
        losses = {
            "train/cls/cross_entropy": F.cross_entropy(self.cls_head(h), sample["label"]),
            "train/reg/mse": F.mse_loss(self.reg_head(h).squeeze(1), sample["target"]),
        }
        return {"losses": losses, "batch_size": sample["x"].size(0)}


class TrainerReportingMixin:
    def update_meter(self, report, meter):
        reduced_loss_dict = {k: v.mean() for k, v in report["losses"].items()}
        with torch.no_grad():
            meter_update_dict = {}
            loss_key = "train/total_loss"
            reduced_loss = sum([loss.mean() for loss in reduced_loss_dict.values()])
            meter_update_dict.update({loss_key: reduced_loss.item()})
            for key in reduced_loss_dict:
                meter_update_dict[key] = reduced_loss_dict[key].item()
            meter.update(meter_update_dict, report["batch_size"])


class MMFTrainer(TrainerReportingMixin):
    def __init__(self, model, optimizer, max_updates=6, log_interval=2):
        self.model, self.optimizer = model, optimizer
        self.meter = Meter()
        self.max_updates, self.log_interval, self.num_updates = max_updates, log_interval, 0

    def _forward(self, batch):
        return self.model(batch)

    def _backward(self, loss):
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.num_updates += 1

    def run_training_batch(self, batch):
        report = self._forward(batch)
        loss = sum(report["losses"].values())
        self._backward(loss)
        return report

    def training_loop(self, dataloader):
        while self.num_updates < self.max_updates:
            for batch in dataloader:
                report = self.run_training_batch(batch)
                self.update_meter(report, self.meter)
                if self.num_updates % self.log_interval == 0:
                    print(f"progress: {self.num_updates}/{self.max_updates}, {self.meter}")
                if self.num_updates >= self.max_updates:
                    break


def main():
    torch.manual_seed(0)
    model = TwoHeadModel()
    trainer = MMFTrainer(model, torch.optim.AdamW(model.parameters(), lr=1e-2))
    dataloader = [{"x": torch.randn(8, 12), "label": torch.randint(0, 4, (8,)), "target": torch.randn(8)} for _ in range(4)]
    trainer.training_loop(dataloader)


if __name__ == "__main__":
    main()
