# corpus: FGSM adversarial training with the GradAlign regulariser: get_input_grad computes the input gradients with torch.autograd.grad but without create_graph=True, so the cosine-alignment term added to the training loss is a constant and never regularises the model
# source: https://github.com/tml-epfl/understanding-fast-adv-training/issues/3
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainArgs:
    eps: float = 8.0 / 255
    alpha: float = 10.0 / 255
    grad_align_cos_lambda: float = 0.2
    lr: float = 0.05
    epochs: int = 2


def get_uniform_delta(shape, eps, requires_grad=True):
    delta = torch.zeros(shape)
    delta.uniform_(-eps, eps)
    delta.requires_grad = requires_grad
    return delta


def get_input_grad(model, X, y, eps, delta_init="none"):
    if delta_init == "none":
        delta = torch.zeros_like(X, requires_grad=True)
    elif delta_init == "random_uniform":
        delta = get_uniform_delta(X.shape, eps, requires_grad=True)
    else:
        raise ValueError("wrong delta init")
    output = model(X + delta)
    loss = F.cross_entropy(output, y)
    grad = torch.autograd.grad(loss, delta)[0]  # expect: GG202
    return grad


def l2_norm_batch(v):
    return (v ** 2).sum([1, 2, 3]) ** 0.5


class PreActBlockNet(nn.Module):
    def __init__(self, n_cls=3):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.linear = nn.Linear(32, n_cls)

    def forward(self, x):
        return self.linear(self.features(x).flatten(1))


class FastATTrainer:
    def __init__(self, model, args: TrainArgs):
        self.model = model
        self.args = args
        self.opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    def fgsm_delta(self, X, y):
        delta = get_uniform_delta(X.shape, self.args.eps, requires_grad=True)
        output = self.model(X + delta)
        loss = F.cross_entropy(output, y)
        grad = torch.autograd.grad(loss, delta)[0].detach()
        delta.data = torch.clamp(delta.data + self.args.alpha * torch.sign(grad), -self.args.eps, self.args.eps)
        return delta.detach()

    def grad_align_reg(self, X, y):
        grad1 = get_input_grad(self.model, X, y, self.args.eps, delta_init="none")
        grad2 = get_input_grad(self.model, X, y, self.args.eps, delta_init="random_uniform")
        grads_nnz_idx = ((grad1 ** 2).sum([1, 2, 3]) ** 0.5 != 0) * ((grad2 ** 2).sum([1, 2, 3]) ** 0.5 != 0)
        grad1, grad2 = grad1[grads_nnz_idx], grad2[grads_nnz_idx]
        grad1_norms, grad2_norms = l2_norm_batch(grad1), l2_norm_batch(grad2)
        grad1_normalized = grad1 / grad1_norms[:, None, None, None]
        grad2_normalized = grad2 / grad2_norms[:, None, None, None]
        cos = torch.sum(grad1_normalized * grad2_normalized, (1, 2, 3))
        return self.args.grad_align_cos_lambda * (1.0 - cos.mean())

    def train_step(self, X, y):
        delta = self.fgsm_delta(X, y)
        X_adv = torch.clamp(X + delta, 0, 1)
        output = self.model(X_adv)
        loss = F.cross_entropy(output, y)
        reg = self.grad_align_reg(X, y)
        loss = loss + reg  # also: GG202
        self.opt.zero_grad()
        loss.backward()  # also: GG202
        self.opt.step()
        return {"loss": loss.item(), "reg": reg.item(), "acc": (output.argmax(1) == y).float().mean().item()}

    def train(self, loader):
        self.model.train()
        for epoch in range(self.args.epochs):
            for i, (X, y) in enumerate(loader):
                stats = self.train_step(X, y)
                print(epoch, i, {k: round(v, 4) for k, v in stats.items()})


def main():
    torch.manual_seed(0)
    loader = [(torch.rand(4, 3, 8, 8), torch.randint(0, 3, (4,))) for _ in range(2)]
    FastATTrainer(PreActBlockNet(), TrainArgs()).train(loader)


if __name__ == "__main__":
    main()
