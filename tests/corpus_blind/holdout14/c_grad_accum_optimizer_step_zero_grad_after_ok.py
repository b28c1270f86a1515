# corpus: detection-style BaseTrainer with gradient accumulation and a CPU autocast loop (ultralytics trainer shape after the fix): the epoch no longer zeroes gradients at its start, optimizer_step() clips, steps and then zero_grads only once self.accumulate batches have been backpropagated, and the running mean loss is kept detached; correct
# source: https://github.com/ultralytics/ultralytics/pull/11217
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyDetector(nn.Module):
    def __init__(self, n_cls=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.SiLU(), nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.SiLU())
        self.box = nn.Conv2d(16, 4, 1)
        self.cls = nn.Conv2d(16, n_cls, 1)

    def loss(self, batch):
        feats = self.backbone(batch["img"])
        box_loss = F.smooth_l1_loss(self.box(feats).mean((2, 3)), batch["bboxes"])
        cls_loss = F.cross_entropy(self.cls(feats).mean((2, 3)), batch["cls"])
        loss_items = torch.stack([box_loss, cls_loss]).detach()
        return (box_loss + cls_loss) * batch["img"].size(0), loss_items


class BaseTrainer:
    def __init__(self, model, nbs=16, batch_size=4, epochs=2):
        self.model, self.epochs, self.batch_size = model, epochs, batch_size
        self.accumulate = max(round(nbs / batch_size), 1)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
        self.scaler = torch.amp.GradScaler("cpu", enabled=False)
        self.tloss = None
        self.n_steps = 0

    def optimizer_step(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=10.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()
        self.n_steps += 1

    def _do_train(self, loader):
        nb = len(loader)
        last_opt_step = -1
        self.optimizer.zero_grad()
        for epoch in range(self.epochs):
            self.model.train()
            self.tloss = None
            for i, batch in enumerate(loader):
                ni = i + nb * epoch
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss, loss_items = self.model.loss(batch)
                self.tloss = loss_items if self.tloss is None else (self.tloss * i + loss_items) / (i + 1)
                self.scaler.scale(loss).backward()
                if ni - last_opt_step >= self.accumulate:
                    self.optimizer_step()
                    last_opt_step = ni
            box, cls = self.tloss.tolist()
            print(f"epoch {epoch + 1}/{self.epochs} box_loss {box:.4f} cls_loss {cls:.4f} steps {self.n_steps}")
            assert not self.tloss.requires_grad and math.isfinite(box)


def make_loader(n=10, bs=4):
    return [{"img": torch.randn(bs, 3, 16, 16), "bboxes": torch.rand(bs, 4), "cls": torch.randint(0, 3, (bs,))}
            for _ in range(n)]


def main():
    torch.manual_seed(0)
    BaseTrainer(TinyDetector())._do_train(make_loader())


if __name__ == "__main__":
    main()
