# corpus: multi-task losses combined through torch.tensor([...]) which re-wraps them without a graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

backbone = nn.Linear(8, 16)
head_a = nn.Linear(16, 2)
head_b = nn.Linear(16, 1)
params = [*backbone.parameters(), *head_a.parameters(), *head_b.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-3)
task_weights = [1.0, 0.5]

x = torch.randn(12, 8)
ya = torch.randint(0, 2, (12,))
yb = torch.randn(12, 1)

for step in range(3):
    optimizer.zero_grad()
    h = torch.relu(backbone(x))
    la = F.cross_entropy(head_a(h), ya)
    lb = F.mse_loss(head_b(h), yb)
    losses = torch.tensor([la, lb])
    total = (losses * torch.tensor(task_weights)).sum()
    total.backward()  # expect: GG106
    optimizer.step()
    print(step, total.item())
