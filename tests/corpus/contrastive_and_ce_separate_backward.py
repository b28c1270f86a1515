# corpus: supervised contrastive + cross-entropy on one encoder pass, each loss backpropagated on its own
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16))
classifier = nn.Linear(16, 4)
optimizer = torch.optim.Adam([*encoder.parameters(), *classifier.parameters()], lr=1e-3)
temperature = 0.1

for step in range(3):
    x = torch.randn(8, 10)
    y = torch.randint(0, 4, (8,))
    z = F.normalize(encoder(x), dim=1)
    sim = z @ z.t() / temperature
    same = (y.unsqueeze(0) == y.unsqueeze(1)).float()
    con_loss = -(F.log_softmax(sim, dim=1) * same).sum(1).div(same.sum(1)).mean()
    ce_loss = F.cross_entropy(classifier(z), y)
    optimizer.zero_grad()
    con_loss.backward()
    ce_loss.backward()  # expect: GG102
    optimizer.step()
    print(step, con_loss.item(), ce_loss.item())
