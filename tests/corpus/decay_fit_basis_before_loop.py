# corpus: fitting an exponential-decay model where the basis depending on the learnable rate is built before the loop
# raises: RuntimeError: Trying to backward through the graph a second time
import torch

torch.manual_seed(0)

t = torch.linspace(0, 5, 40)
true_signal = 2.0 * torch.exp(-0.7 * t) + 0.05 * torch.randn(40)

rate = torch.tensor(0.3, requires_grad=True)
amp = torch.tensor(1.0, requires_grad=True)
optimizer = torch.optim.Adam([rate, amp], lr=0.05)

basis = torch.exp(-rate * t)  # expect: GG103

for step in range(100):
    optimizer.zero_grad()
    pred = amp * basis
    loss = ((pred - true_signal) ** 2).mean()
    loss.backward()
    optimizer.step()
    if step % 20 == 0:
        print(f"step {step}: loss={loss.item():.4f} rate={rate.item():.3f}")
