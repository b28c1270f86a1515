# corpus: gated MLP that zeroes part of a sigmoid gate in place before the loss
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn

torch.manual_seed(0)

proj = nn.Linear(10, 10)
gate_proj = nn.Linear(10, 10)
out = nn.Linear(10, 1)
optimizer = torch.optim.Adam([*proj.parameters(), *gate_proj.parameters(), *out.parameters()], lr=1e-3)
x = torch.randn(16, 10)
y = torch.randn(16, 1)
keep = (torch.rand(10) > 0.2).float()

for step in range(2):
    optimizer.zero_grad()
    gate = torch.sigmoid(gate_proj(x))
    gate.mul_(keep)  # expect: GG107
    h = proj(x) * gate
    loss = ((out(h) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
