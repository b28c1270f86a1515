# corpus: auxiliary-loss training that steps the optimizer between two backward passes over one retained graph
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 12), nn.ReLU())
main_head = nn.Linear(12, 3)
aux_head = nn.Linear(12, 6)
optimizer = torch.optim.SGD([*encoder.parameters(), *main_head.parameters(), *aux_head.parameters()], lr=0.05)
x = torch.randn(10, 6)
y = torch.randint(0, 3, (10,))

for step in range(2):
    optimizer.zero_grad()
    h = encoder(x)
    main_loss = F.cross_entropy(main_head(h), y)
    aux_loss = F.mse_loss(aux_head(h), x)
    main_loss.backward(retain_graph=True)
    optimizer.step()  # expect: GG111
    aux_loss.backward()
    optimizer.step()
    print(step, main_loss.item(), aux_loss.item())
