# corpus: custom autograd Exponential saves its output for backward, and a memory-saving fused gated MLP then multiplies that output in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/linkedin/Liger-Kernel/issues/254
import torch
import torch.nn as nn

torch.manual_seed(0)


class Exponential(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        out, = ctx.saved_tensors
        return grad_out * out


def gated_inplace(a, b):
    """Fused gate that reuses a's storage to save activation memory."""
    a.mul_(torch.sigmoid(b))  # expect: GG107
    return a


class FusedGatedMLP(nn.Module):
    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.gate = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        x_exp = Exponential.apply(self.up(x) * 0.1)
        h = gated_inplace(x_exp, self.gate(x))
        return self.down(h)


def main():
    block = FusedGatedMLP()
    opt = torch.optim.SGD(block.parameters(), lr=0.01)
    x = torch.randn(4, 8)
    target = torch.randn(4, 8)
    loss = ((block(x) - target) ** 2).mean()
    opt.zero_grad()
    loss.backward()  # also: GG107
    opt.step()


if __name__ == "__main__":
    main()
