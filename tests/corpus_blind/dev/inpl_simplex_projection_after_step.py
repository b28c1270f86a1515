# corpus: ensemble weights kept on the simplex by clamp_/div_ on the nn.Parameter after optimizer.step() without torch.no_grad()
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://discuss.pytorch.org/t/shouldnt-we-project-the-gradients-when-the-weight-matrix-is-constrained/141472
import torch
import torch.nn as nn


class WeightedEnsemble(nn.Module):
    def __init__(self, members):
        super().__init__()
        self.members = nn.ModuleList(members)
        self.mix = nn.Parameter(torch.full((len(members),), 1.0 / len(members)))

    def forward(self, x):
        outs = torch.stack([m(x) for m in self.members], dim=0)
        return (self.mix.view(-1, 1, 1) * outs).sum(dim=0)

    def project_(self):
        self.mix.clamp_(min=0.0)  # expect: GG108
        self.mix.div_(self.mix.sum())  # also: GG108


def train(model, x, y, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        model.project_()  # also: GG108


if __name__ == "__main__":
    torch.manual_seed(0)
    members = [nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)) for _ in range(3)]
    model = WeightedEnsemble(members)
    train(model, torch.randn(20, 3), torch.randn(20, 1))
