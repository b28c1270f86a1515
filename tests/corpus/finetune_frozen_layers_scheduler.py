# corpus: fine-tuning with the early layers frozen, optimizer over trainable params, cosine schedule and grad clipping
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer1 = nn.Linear(12, 24)
        self.layer2 = nn.Linear(24, 24)
        self.layer3 = nn.Linear(24, 24)

    def forward(self, x):
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return torch.relu(self.layer3(x))


torch.manual_seed(0)
encoder = Encoder()
head = nn.Linear(24, 3)
for module in (encoder.layer1, encoder.layer2):
    module.requires_grad_(False)
trainable = [p for p in list(encoder.parameters()) + list(head.parameters()) if p.requires_grad]
optimizer = torch.optim.AdamW(trainable, lr=1e-3, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=6)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
x = torch.randn(16, 12)
y = torch.randint(0, 3, (16,))

for epoch in range(6):
    optimizer.zero_grad(set_to_none=True)
    loss = criterion(head(encoder(x)), y)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(trainable, max_norm=1.0)
    optimizer.step()
    scheduler.step()
    print(f"epoch {epoch}: loss {loss.item():.4f} |g| {grad_norm.item():.3f} lr {scheduler.get_last_lr()[0]:.2e}")
