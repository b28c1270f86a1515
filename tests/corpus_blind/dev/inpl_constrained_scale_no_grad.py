# corpus: learnable temperature/gain parameters are initialised with nn.init and projected back into range with clamp_ under torch.no_grad() after each step (correct)
# source: https://discuss.pytorch.org/t/leaf-variable-was-used-in-an-inplace-operation/308/2
import torch
import torch.nn as nn
import torch.nn.functional as F


class ScaledCosineClassifier(nn.Module):
    def __init__(self, dim, num_classes, min_scale=1.0, max_scale=30.0):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(num_classes, dim))
        self.log_scale = nn.Parameter(torch.empty(1))
        self.gain = nn.Parameter(torch.empty(num_classes))
        self.bounds = (min_scale, max_scale)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=5 ** 0.5)
        nn.init.constant_(self.log_scale, 2.0)
        with torch.no_grad():
            self.gain.fill_(1.0)

    def forward(self, x):
        cos = F.linear(F.normalize(x, dim=-1), F.normalize(self.weight, dim=-1))
        return self.log_scale.exp() * cos * self.gain

    @torch.no_grad()
    def project(self):
        lo, hi = self.bounds
        self.log_scale.clamp_(min=torch.log(torch.tensor(lo)).item(), max=torch.log(torch.tensor(hi)).item())
        self.gain.clamp_(0.5, 2.0)


class Learner:
    def __init__(self):
        self.backbone = nn.Sequential(nn.Linear(12, 16), nn.ReLU())
        self.head = ScaledCosineClassifier(16, 3)
        params = list(self.backbone.parameters()) + list(self.head.parameters())
        self.opt = torch.optim.SGD(params, lr=5.0)

    def step(self, x, y):
        self.opt.zero_grad()
        loss = F.cross_entropy(self.head(self.backbone(x)), y)
        loss.backward()
        self.opt.step()
        self.head.project()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    learner = Learner()
    x, y = torch.randn(16, 12), torch.randint(0, 3, (16,))
    for _ in range(3):
        learner.step(x, y)
    # ground truth: parameters remain leaves inside their bounds and all received gradients
    head = learner.head
    assert head.log_scale.is_leaf and head.gain.is_leaf
    assert 0.0 - 1e-6 <= head.log_scale.item() <= torch.log(torch.tensor(30.0)).item() + 1e-6
    assert head.gain.min() >= 0.5 - 1e-6 and head.gain.max() <= 2.0 + 1e-6
    assert all(p.grad is not None for p in list(learner.backbone.parameters()) + list(head.parameters()))
