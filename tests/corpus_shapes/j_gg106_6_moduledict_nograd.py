# corpus: multi-head model returning a dict is run under torch.no_grad() (meant for accuracy logging) and the summed dict of losses from that output is backpropagated
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: docs/rules/GG106.md (shape: 6, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "aux": nn.Linear(8, 1)})

    def forward(self, x):
        h = self.encoder(x)
        return {name: head(h) for name, head in self.heads.items()}


torch.manual_seed(0)
model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(5, 6)
labels = torch.tensor([0, 2, 1, 1, 0])
aux_target = torch.randn(5, 1)
for step in range(2):
    with torch.no_grad():
        out = model(x)  # also: GG106
    acc = (out["cls"].argmax(1) == labels).float().mean().item()
    losses = {"cls": F.cross_entropy(out["cls"], labels), "aux": F.mse_loss(out["aux"], aux_target)}
    loss = sum(losses.values())
    opt.zero_grad()
    loss.backward()  # expect: GG106
    opt.step()
    print(step, acc, {k: v.item() for k, v in losses.items()})
