# corpus: multi-task network (shared trunk, two heads) with each task loss backpropagated separately
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MultiTaskNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 24), nn.ReLU())
        self.cls_head = nn.Linear(24, 4)
        self.reg_head = nn.Linear(24, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h)


net = MultiTaskNet()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(20, 12)
y_cls = torch.randint(0, 4, (20,))
y_reg = torch.randn(20, 1)

for it in range(4):
    optimizer.zero_grad()
    logits, value = net(x)
    loss_cls = F.cross_entropy(logits, y_cls)
    loss_reg = F.mse_loss(value, y_reg)
    loss_cls.backward()
    loss_reg.backward()  # expect: GG102
    optimizer.step()
    print(it, loss_cls.item(), loss_reg.item())
