# corpus: CNN trained with OneCycleLR, clip_grad_norm_, and logging of loss.item() and the returned grad norm
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


torch.manual_seed(0)
model = SmallCNN()
steps = 6
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=steps)
log = {"loss": [], "grad_norm": []}

for step in range(steps):
    images = torch.randn(4, 1, 10, 10)
    labels = torch.randint(0, 10, (4,))
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 2.0)
    optimizer.step()
    scheduler.step()
    log["loss"].append(loss.item())
    log["grad_norm"].append(float(norm))
print({k: [round(v, 3) for v in vals] for k, vals in log.items()})
