# corpus: lanedet-style Runner under a DataParallel-like wrapper: each replica returns a scalar loss, the gather stacks them into a vector, and train_epoch calls backward on it
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/Turoad/lanedet/issues/78
import torch
import torch.nn as nn
import torch.nn.functional as F


class RESAHead(nn.Module):
    def __init__(self, in_dim=12, num_lanes=4, num_points=6):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 24), nn.ReLU(), nn.Linear(24, 24), nn.ReLU())
        self.seg_head = nn.Linear(24, num_lanes + 1)
        self.exist_head = nn.Linear(24, num_lanes)
        self.reg_head = nn.Linear(24, num_points)

    def forward(self, batch):
        feat = self.backbone(batch["img"])
        seg_loss = F.cross_entropy(self.seg_head(feat), batch["label"])
        exist_loss = F.binary_cross_entropy_with_logits(self.exist_head(feat), batch["exist"])
        reg_loss = F.smooth_l1_loss(self.reg_head(feat), batch["points"])
        loss = seg_loss + 0.1 * exist_loss + 0.5 * reg_loss
        loss_stats = {"seg_loss": seg_loss.detach(), "exist_loss": exist_loss.detach()}
        return {"loss": loss, "loss_stats": loss_stats}


class MMDataParallelCPU(nn.Module):
    """Scatter the batch over `num_replicas` chunks and gather the outputs like nn.DataParallel."""

    def __init__(self, module, num_replicas=2):
        super().__init__()
        self.module = module
        self.num_replicas = num_replicas

    def forward(self, batch):
        chunks = [{k: v.chunk(self.num_replicas)[i] for k, v in batch.items()} for i in range(self.num_replicas)]
        outputs = [self.module(c) for c in chunks]
        return self.gather(outputs)

    def gather(self, outputs):
        # scalars are unsqueezed and concatenated: "all input tensors were scalars; will instead unsqueeze"
        loss = torch.stack([o["loss"] for o in outputs])  # also: GG109
        stats = {k: torch.stack([o["loss_stats"][k] for o in outputs]) for k in outputs[0]["loss_stats"]}
        return {"loss": loss, "loss_stats": stats}


class Recorder:
    def __init__(self):
        self.loss_stats = {}

    def update_loss_stats(self, loss_dict):
        for k, v in loss_dict.items():
            self.loss_stats.setdefault(k, []).append(v.mean().item())


class Runner:
    def __init__(self, cfg):
        self.cfg = cfg
        self.net = MMDataParallelCPU(RESAHead(), num_replicas=cfg["gpus"])
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=cfg["lr"], momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10)
        self.recorder = Recorder()

    def train_epoch(self, epoch, train_loader):
        self.net.train()
        for i, data in enumerate(train_loader):
            output = self.net(data)
            self.optimizer.zero_grad()
            loss = output["loss"]  # also: GG109
            loss.backward()  # expect: GG109
            self.optimizer.step()
            self.scheduler.step()
            self.recorder.update_loss_stats(output["loss_stats"])

    def train(self, train_loader):
        for epoch in range(self.cfg["epochs"]):
            self.train_epoch(epoch, train_loader)
            print(epoch, {k: round(v[-1], 4) for k, v in self.recorder.loss_stats.items()})


def make_loader(n=3, batch=4):
    return [
        {
            "img": torch.randn(batch, 12),
            "label": torch.randint(0, 5, (batch,)),
            "exist": torch.randint(0, 2, (batch, 4)).float(),
            "points": torch.randn(batch, 6),
        }
        for _ in range(n)
    ]


def main():
    torch.manual_seed(0)
    runner = Runner({"gpus": 2, "lr": 0.025, "epochs": 2})
    runner.train(make_loader())


if __name__ == "__main__":
    main()
