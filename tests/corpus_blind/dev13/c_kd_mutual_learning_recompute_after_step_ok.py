# corpus: deep mutual learning of two peer classifiers (AlignedReID-style DML loop): net1 is updated with its cross-entropy plus a KL term towards the detached peer logits, then p1 is recomputed after net1's step and net2 is updated towards the detached new p1, so neither backward reaches a freed or stepped graph; correct
# source: https://github.com/huanghoujing/AlignedReID-Re-Production-Pytorch/issues/42
import torch
import torch.nn as nn
import torch.nn.functional as F


class Feat(nn.Module):
    def __init__(self, in_dim=40, out_dim=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 128), nn.ReLU(), nn.Linear(128, out_dim), nn.ReLU())

    def forward(self, x):
        return self.net(x)


def kl_term(logits, peer_logits):
    # sum over classes, average over samples (size_average=False, then / N)
    return F.kl_div(F.log_softmax(logits, dim=1), F.softmax(peer_logits, dim=1), reduction="sum") / logits.shape[0]


class MutualLearner:
    def __init__(self, n_classes=10, lr=0.05):
        self.Feat1, self.Feat2 = Feat(), Feat()
        self.FC1, self.FC2 = nn.Linear(256, n_classes), nn.Linear(256, n_classes)
        self.optimizer1 = torch.optim.SGD(list(self.Feat1.parameters()) + list(self.FC1.parameters()),
                                          lr=lr, momentum=0.9)
        self.optimizer2 = torch.optim.SGD(list(self.Feat2.parameters()) + list(self.FC2.parameters()),
                                          lr=lr, momentum=0.9)

    def train_step(self, inputs, labels):
        """compute p1 p2"""
        logits1 = self.FC1(self.Feat1(inputs).view(-1, 256))
        logits2 = self.FC2(self.Feat2(inputs).view(-1, 256))

        """update net1"""
        l1 = F.cross_entropy(logits1, labels)
        kl1 = kl_term(logits1, logits2.detach())
        loss1 = l1 + kl1
        self.optimizer1.zero_grad()
        loss1.backward()
        self.optimizer1.step()

        """compute p1 again with the updated net1"""
        logits1 = self.FC1(self.Feat1(inputs).view(-1, 256))

        """update net2"""
        l2 = F.cross_entropy(logits2, labels)
        kl2 = kl_term(logits2, logits1.detach())
        loss2 = l2 + kl2
        self.optimizer2.zero_grad()
        loss2.backward()
        self.optimizer2.step()
        return {"l1": l1.item(), "kl1": kl1.item(), "l2": l2.item(), "kl2": kl2.item()}

    def accuracy(self, inputs, labels):
        with torch.no_grad():
            acc1 = (self.FC1(self.Feat1(inputs)).argmax(1) == labels).float().mean().item()
            acc2 = (self.FC2(self.Feat2(inputs)).argmax(1) == labels).float().mean().item()
        return acc1, acc2


def make_data(n=256, in_dim=40, n_classes=10):
    g = torch.Generator().manual_seed(0)
    centers = torch.randn(n_classes, in_dim, generator=g) * 2
    labels = torch.randint(0, n_classes, (n,), generator=g)
    return centers[labels] + torch.randn(n, in_dim, generator=g), labels


def main():
    torch.manual_seed(0)
    x, y = make_data()
    learner = MutualLearner()
    for epoch in range(3):
        for i in range(0, len(x), 64):
            logs = learner.train_step(x[i:i + 64], y[i:i + 64])
        print(f"epoch {epoch}: {logs} acc {learner.accuracy(x, y)}")


if __name__ == "__main__":
    main()
