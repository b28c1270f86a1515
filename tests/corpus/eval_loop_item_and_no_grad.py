# corpus: validation under no_grad collecting tensors in a list; training accumulates .item()
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
x = torch.randn(12, 4)
y = torch.randint(0, 2, (12,))
running = 0.0
for step in range(3):
    opt.zero_grad()
    loss = crit(model(x), y)
    loss.backward()
    opt.step()
    running += loss.item()
preds = []
with torch.no_grad():
    for step in range(2):
        logits = model(x)
        preds.append(logits.argmax(1))
        val = crit(logits, y)
        running += val
print(running, torch.cat(preds).shape)
