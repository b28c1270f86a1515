# corpus: MLP built with nn.Sequential using ReLU(inplace=True) after Linear and after BatchNorm1d (both fine)
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(
    nn.Linear(10, 32),
    nn.ReLU(inplace=True),
    nn.Linear(32, 32),
    nn.BatchNorm1d(32),
    nn.ReLU(inplace=True),
    nn.Dropout(0.2),
    nn.Linear(32, 2),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
x = torch.randn(16, 10)
y = torch.randint(0, 2, (16,))

for epoch in range(3):
    model.train()
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
