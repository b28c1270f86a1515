# corpus: gradient accumulation over micro-batches: loss / accum_steps, step and zero_grad every accum_steps
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 20), nn.GELU(), nn.Linear(20, 2))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
accum_steps = 4
micro_batches = [(torch.randn(4, 10), torch.randint(0, 2, (4,))) for _ in range(8)]

optimizer.zero_grad()
for i, (xb, yb) in enumerate(micro_batches):
    loss = criterion(model(xb), yb) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad()
        print(f"update after micro-batch {i}: loss {loss.item() * accum_steps:.4f}")
