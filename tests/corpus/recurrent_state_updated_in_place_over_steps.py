# corpus: a recurrent cell keeps a running memory it updates with += at every time step; the time loop has no backward, but the next step's += overwrites the memory the previous step's matmul saved, so the backward after the loop raises
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn


class MemoryCell(nn.Module):
    def __init__(self, dim: int = 6, feature_map=None) -> None:
        super().__init__()
        self.key = nn.Linear(dim, dim)
        self.query = nn.Linear(dim, dim)
        self.feature_map = feature_map or torch.sigmoid

    def forward(self, x, memory=None):
        k = self.feature_map(self.key(x))
        if memory is None:
            memory = x.new_zeros(x.shape[0], x.shape[1], x.shape[1])
        memory += k[:, :, None] * k[:, None, :]  # expect: GG107
        out = torch.bmm(memory, self.query(x)[:, :, None]).squeeze(2)
        return out, memory


class Model(nn.Module):
    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.cell = MemoryCell(dim)
        self.head = nn.Linear(dim, 1)

    def unroll(self, seq):
        memory = None
        outputs = []
        for t in range(seq.shape[1]):
            out, memory = self.cell(seq[:, t], memory)
            outputs.append(self.head(out))
        return torch.stack(outputs, 1)


torch.manual_seed(0)
model = Model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
seq = torch.randn(3, 5, 6)
loss = model.unroll(seq).pow(2).mean()
loss.backward()  # also: GG107
optimizer.step()
