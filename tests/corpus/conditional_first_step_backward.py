# corpus: a second backward only on a later step, after a fresh forward; the first step logs only
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
for step in range(4):
    out = model(x)
    loss = out.pow(2).mean()
    if step % 2 == 0:
        opt.zero_grad()
        loss.backward()
        opt.step()
    else:
        print(step, loss.item())
