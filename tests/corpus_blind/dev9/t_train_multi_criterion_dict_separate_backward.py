# corpus: two-head classifier runner with a dict of criteria; each criterion's loss from the one shared forward is backpropagated separately, so the second backward hits the freed shared trunk
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/catalyst-team/catalyst/issues/1435
import torch
import torch.nn as nn


class TwoHeadNet(nn.Module):
    def __init__(self, in_dim=12, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.Tanh())
        self.head1 = nn.Linear(hidden, 2)
        self.head2 = nn.Linear(hidden, 4)

    def forward(self, features):
        h = self.trunk(features)
        return self.head1(h), self.head2(h)


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class MultiCriterionRunner:
    def __init__(self, model, criterion, optimizer):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.meters = {key: AverageMeter() for key in ["loss_ce1", "loss_ce2"]}
        self.batch_metrics = {}

    def handle_batch(self, batch):
        logits1, logits2 = self.model(batch["features"])
        self.batch_metrics = {
            "loss_ce1": self.criterion["CE_Loss1"](logits1, batch["targets1"]),
            "loss_ce2": self.criterion["CE_Loss2"](logits2, batch["targets2"]),
        }
        bs = batch["features"].shape[0]
        for key, value in self.batch_metrics.items():
            self.meters[key].update(value.item(), bs)
        self.optimizer.zero_grad()
        for key, loss in self.batch_metrics.items():
            loss.backward()  # expect: GG102
        self.optimizer.step()

    def run_epoch(self, loader):
        for batch in loader:
            self.handle_batch(batch)
        return {k: m.avg for k, m in self.meters.items()}


def make_loader(n=3, bs=8):
    return [
        {"features": torch.randn(bs, 12), "targets1": torch.randint(0, 2, (bs,)), "targets2": torch.randint(0, 4, (bs,))}
        for _ in range(n)
    ]


def main():
    torch.manual_seed(0)
    weights = torch.tensor([0.2, 0.3])
    criterion = {"CE_Loss1": nn.CrossEntropyLoss(weight=weights), "CE_Loss2": nn.CrossEntropyLoss()}
    model = TwoHeadNet()
    runner = MultiCriterionRunner(model, criterion, torch.optim.Adam(model.parameters(), lr=1e-3))
    print(runner.run_epoch(make_loader()))


if __name__ == "__main__":
    main()
