# corpus: physics-informed net for u' = -u; residual from autograd.grad without create_graph, then u reused in the loss
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)

u_net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(u_net.parameters(), lr=1e-3)
x0 = torch.zeros(1, 1)

for step in range(5):
    x = torch.rand(32, 1, requires_grad=True)
    u = u_net(x)
    du_dx = torch.autograd.grad(u.sum(), x)[0]  # expect: GG202
    residual = du_dx + u
    boundary = (u_net(x0) - 1.0) ** 2
    loss = residual.pow(2).mean() + boundary.mean()
    optimizer.zero_grad()
    loss.backward()  # expect: GG102
    optimizer.step()
    print(step, loss.item())
