# corpus: Trainer computes scale = log_scale.exp() once in __init__ and every fit() iteration's loss backpropagates through that stale pre-loop graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG103.md (shape: 1, 5)
import torch


class ScaleFitter:
    def __init__(self, log_scale, optimizer, data):
        self.log_scale = log_scale
        self.optimizer = optimizer
        self.data = data
        self.scale = self.log_scale.exp()  # expect: GG103

    def compute_loss(self):
        return ((self.data * self.scale - 1.0) ** 2).mean()  # also: GG103

    def train_step(self):
        self.optimizer.zero_grad()
        loss = self.compute_loss()
        loss.backward()  # also: GG103
        self.optimizer.step()
        return loss.item()

    def fit(self, steps=5):
        return [self.train_step() for _ in range(steps)]


torch.manual_seed(0)
log_scale = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([log_scale], lr=0.1)
fitter = ScaleFitter(log_scale, opt, torch.randn(10, 3))
print(fitter.fit())
