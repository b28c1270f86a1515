# corpus: helper that logs per-layer gradient norms by calling backward itself, followed by the usual backward
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)


def log_gradient_norms(loss, model):
    model.zero_grad()
    loss.backward()
    for name, p in model.named_parameters():
        print(f"  {name}: {p.grad.norm().item():.4f}")


model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(16, 6)
y = torch.randn(16, 1)

for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    if step == 0:
        log_gradient_norms(loss, model)
    loss.backward()  # expect: GG101
    optimizer.step()
    print(step, loss.item())
