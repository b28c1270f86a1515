# corpus: mutual contrastive learning trainer whose loss is computed inside a DataParallel-style wrapper; gathering one scalar loss per replica yields a vector and loss.backward() is called on it without .mean()
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/winycg/L-MCL/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F


class ReplicaParallel(nn.Module):
    """Stand-in for nn.DataParallel on a CPU box: scatter the batch, run each
    replica, gather the outputs (0-dim outputs are gathered into a vector)."""

    def __init__(self, module, n_replicas=2):
        super().__init__()
        self.module = module
        self.n_replicas = n_replicas

    def forward(self, *inputs):
        chunks = zip(*[t.chunk(self.n_replicas) for t in inputs])
        outputs = [self.module(*chunk) for chunk in chunks]
        return torch.stack([o.reshape(1) for o in outputs]).squeeze(1)


class SmallNet(nn.Module):
    def __init__(self, in_dim=12, n_classes=5, emb=8):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, emb))
        self.fc = nn.Linear(emb, n_classes)

    def forward(self, x):
        emb = self.body(x)
        return self.fc(emb), F.normalize(emb, dim=1)


class MutualContrastiveLoss(nn.Module):
    def __init__(self, nets, temperature=0.1):
        super().__init__()
        self.nets = nn.ModuleList(nets)
        self.t = temperature

    def forward(self, x, y):
        logits, embs = zip(*[net(x) for net in self.nets])
        ce = sum(F.cross_entropy(lg, y) for lg in logits)
        sim = embs[0] @ embs[1].t() / self.t
        target = torch.arange(x.size(0))
        icl = F.cross_entropy(sim, target) + F.cross_entropy(sim.t(), target)
        kl = F.kl_div(F.log_softmax(logits[0], 1), F.softmax(logits[1], 1).detach(), reduction="batchmean")
        return ce + icl + kl


class MCLTrainer:
    def __init__(self, n_nets=2, lr=0.05):
        self.nets = [SmallNet() for _ in range(n_nets)]
        self.criterion = MutualContrastiveLoss(self.nets)
        self.parallel = ReplicaParallel(self.criterion, n_replicas=2)
        params = [p for net in self.nets for p in net.parameters()]
        self.optimizer = torch.optim.SGD(params, lr=lr, momentum=0.9)

    def train(self, epoch, loader):
        total = 0.0
        for x, y in loader:
            loss = self.parallel(x, y)  # expect: GG109
            self.optimizer.zero_grad()
            loss.backward()  # also: GG109
            self.optimizer.step()
            total += loss.sum().item()
        print(f"epoch {epoch} loss {total / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(16, 12), torch.randint(0, 5, (16,))) for _ in range(4)]
    trainer = MCLTrainer()
    for epoch in range(2):
        trainer.train(epoch, loader)


if __name__ == "__main__":
    main()
