# corpus: per-sample weighted regression loss with reduction="none" that is never reduced before backward
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = nn.MSELoss(reduction="none")
inputs = torch.randn(8, 4)
targets = torch.randn(8, 2)
sample_weights = torch.rand(8, 2)

for step in range(3):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets) * sample_weights
    loss.backward()  # expect: GG109
    optimizer.step()
    print(step, loss.mean().item())
