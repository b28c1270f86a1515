# corpus: forward pass wrapped in torch.no_grad() "to save memory", then backward on the resulting loss
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.fc = nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        x = F.relu(self.conv(x))
        return self.fc(x.flatten(1))


model = ConvNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
images = torch.randn(6, 1, 8, 8)
targets = torch.randint(0, 10, (6,))

for epoch in range(2):
    optimizer.zero_grad()
    with torch.no_grad():
        logits = model(images)
        loss = F.cross_entropy(logits, targets)
    loss.backward()  # expect: GG106
    optimizer.step()
    print(epoch, loss.item())
