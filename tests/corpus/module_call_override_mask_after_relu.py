# corpus: an attention module that overrides __call__ (no forward) zeroes its ReLU map's border by slice assignment
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn

torch.manual_seed(0)


class BorderAttention(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.proj = nn.Conv2d(channels, 1, 3, padding=1)
        self.relu = nn.ReLU()

    def __call__(self, x):
        att = self.relu(self.proj(x))
        att[:, :, 0, :] = 0  # expect: GG107
        return x * att


model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), BorderAttention())
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss = model(torch.randn(2, 3, 8, 8)).pow(2).mean()
loss.backward()
opt.step()
