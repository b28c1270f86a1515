# corpus: detection trainer's freeze=N loop freezes every "model.i." layer including the Detect head, so the loss has no grad_fn
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/ultralytics/ultralytics/issues/6184
from types import SimpleNamespace

import torch
import torch.nn as nn


class Conv(nn.Module):
    def __init__(self, c1, c2):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Detect(nn.Module):
    def __init__(self, c1, nc):
        super().__init__()
        self.cls = nn.Conv2d(c1, nc, 1)
        self.box = nn.Conv2d(c1, 4, 1)

    def forward(self, x):
        return self.cls(x), self.box(x)


class DetectionModel(nn.Module):
    def __init__(self, nc=3):
        super().__init__()
        self.model = nn.Sequential(Conv(3, 8), Conv(8, 16), Conv(16, 16), Detect(16, nc))

    def forward(self, x):
        return self.model(x)


class DetectionLoss:
    def __init__(self):
        self.bce = nn.BCEWithLogitsLoss()

    def __call__(self, preds, batch):
        cls, box = preds
        loss_cls = self.bce(cls, batch["cls"])
        loss_box = (box - batch["bboxes"]).abs().mean()
        return loss_cls + 7.5 * loss_box, torch.stack([loss_cls.detach(), loss_box.detach()])


class DetectionTrainer:
    def __init__(self, args):
        self.args = args
        self.model = DetectionModel()
        self.criterion = DetectionLoss()

    def _setup_train(self):
        # Freeze layers
        freeze_list = self.args.freeze if isinstance(self.args.freeze, list) else range(self.args.freeze)
        always_freeze_names = [".dfl"]
        freeze_layer_names = [f"model.{x}." for x in freeze_list] + always_freeze_names
        for k, v in self.model.named_parameters():
            if any(x in k for x in freeze_layer_names):
                print(f"Freezing layer '{k}'")
                v.requires_grad = False  # expect: GG106
        params = [p for p in self.model.parameters() if p.requires_grad] or list(self.model.parameters())
        self.optimizer = torch.optim.SGD(params, lr=self.args.lr0, momentum=0.937)

    def _do_train(self, loader):
        self._setup_train()
        for epoch in range(self.args.epochs):
            self.model.train()
            for batch in loader:
                preds = self.model(batch["img"])
                self.loss, self.loss_items = self.criterion(preds, batch)
                self.optimizer.zero_grad()
                self.loss.backward()  # also: GG106
                self.optimizer.step()


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(freeze=10, lr0=0.01, epochs=1)  # transfer learning: "freeze the backbone"
    loader = [
        {"img": torch.randn(2, 3, 16, 16), "cls": torch.rand(2, 3, 16, 16).round(), "bboxes": torch.rand(2, 4, 16, 16)}
        for _ in range(2)
    ]
    DetectionTrainer(args)._do_train(loader)


if __name__ == "__main__":
    main()
