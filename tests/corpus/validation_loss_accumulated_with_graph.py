# corpus: train/validate script whose validation loop sums loss tensors without no_grad or .item()
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.MSELoss()
train_x, train_y = torch.randn(48, 8), torch.randn(48, 1)
val_x, val_y = torch.randn(16, 8), torch.randn(16, 1)

for epoch in range(3):
    model.train()
    for i in range(0, 48, 16):
        optimizer.zero_grad()
        loss = criterion(model(train_x[i:i + 16]), train_y[i:i + 16])
        loss.backward()
        optimizer.step()

    model.eval()
    val_loss = 0.0
    for j in range(0, 16, 4):
        out = model(val_x[j:j + 4])
        val_loss += criterion(out, val_y[j:j + 4])  # expect: GG301
    print(f"epoch {epoch}: val {val_loss.item() / 4:.4f}")
assert val_loss.grad_fn is not None  # ground truth: the validation graphs are kept alive
