# corpus: a streaming attention head stores its output in a memory bank after a bare `.detach()` statement, so the next frame backpropagates into the old graph
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)


class StreamHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.head = nn.Linear(dim, 1)
        self.memory = torch.zeros(2, 3, dim)

    def forward(self, feats):
        kv = torch.cat([feats, self.memory], dim=1)
        out, _ = self.attn(feats, kv, kv)
        new_memory = out[:, :3]
        new_memory.detach()  # expect: GG112
        self.memory = new_memory  # expect: GG104
        return self.head(out).mean()


model = StreamHead()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for frame in range(3):
    loss = model(torch.randn(2, 4, 8))
    opt.zero_grad()
    loss.backward()
    opt.step()
