# corpus: standard classification loop that accumulates loss.item() and per-epoch accuracy for logging
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
X = torch.randn(64, 16)
Y = torch.randint(0, 4, (64,))
epoch_losses = []

for epoch in range(3):
    running_loss = 0.0
    correct = 0
    for i in range(0, 64, 16):
        inputs, labels = X[i:i + 16], Y[i:i + 16]
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        correct += (outputs.argmax(dim=1) == labels).sum().item()
    epoch_losses.append(running_loss / 4)
    print(f"epoch {epoch}: loss {running_loss / 4:.4f} acc {correct / 64:.2%}")
