# corpus: multi-task model whose task losses are combined with learned uncertainty weights and backpropagated once
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MultiHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(9, 18), nn.ReLU())
        self.seg = nn.Linear(18, 4)
        self.depth = nn.Linear(18, 1)
        self.log_vars = nn.Parameter(torch.zeros(2))

    def forward(self, x):
        h = self.body(x)
        return self.seg(h), self.depth(h)


net = MultiHead()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
x = torch.randn(10, 9)
seg_t = torch.randint(0, 4, (10,))
depth_t = torch.rand(10, 1)

for step in range(4):
    seg_logits, depth = net(x)
    losses = [F.cross_entropy(seg_logits, seg_t), F.l1_loss(depth, depth_t)]
    total = sum(torch.exp(-lv) * l + lv for lv, l in zip(net.log_vars, losses))
    optimizer.zero_grad()
    total.backward()
    optimizer.step()
    print(step, [round(v.item(), 4) for v in losses])
