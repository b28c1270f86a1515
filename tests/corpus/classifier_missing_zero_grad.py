# corpus: small classifier with an LR scheduler whose loop never zeroes gradients
import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 5))

    def forward(self, x):
        return self.layers(x)


model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
criterion = nn.CrossEntropyLoss()
X = torch.randn(64, 20)
Y = torch.randint(0, 5, (64,))

for epoch in range(4):
    model.train()
    for i in range(0, 64, 16):
        xb, yb = X[i:i + 16], Y[i:i + 16]
        loss = criterion(model(xb), yb)
        loss.backward()  # expect: GG201
        optimizer.step()
    scheduler.step()
    print(f"epoch {epoch} lr {scheduler.get_last_lr()[0]:.3f} loss {loss.item():.3f}")
