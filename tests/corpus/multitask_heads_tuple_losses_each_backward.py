# corpus: a multi-task model runs its ModuleDict heads in a dict comprehension, returns a tuple of losses, and the trainer backpropagates each loss of the tuple in turn
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F


def as_tuple(x):
    return x if isinstance(x, (tuple, list)) else (x,)


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh())
        self.heads = nn.ModuleDict({"cls": nn.Linear(16, 3), "reg": nn.Linear(16, 1)})

    def forward(self, x):
        z = self.encoder(x)
        return {name: head(z) for name, head in self.heads.items()}

    def loss(self, out, y_cls, y_reg):
        return F.cross_entropy(out["cls"], y_cls), F.mse_loss(out["reg"].squeeze(1), y_reg)


torch.manual_seed(0)
model = MultiTask()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y_cls, y_reg = torch.randn(8, 6), torch.randint(0, 3, (8,)), torch.randn(8)
optimizer.zero_grad()
for loss in as_tuple(model.loss(model(x), y_cls, y_reg)):
    loss.backward()  # expect: GG102
optimizer.step()
