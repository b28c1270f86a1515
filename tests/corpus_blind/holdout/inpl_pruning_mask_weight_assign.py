# corpus: MaskedLinear zeroes pruned weights with `self.weight[self.mask == 0] = 0` inside forward, an in-place write on a parameter leaf
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/zepx/pytorch-weight-prune/issues/2
import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedLinear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)
        self.register_buffer("mask", torch.ones(out_features, in_features))
        self.mask_flag = False

    def set_mask(self, mask):
        self.mask.copy_(mask)
        self.mask_flag = True

    def forward(self, x):
        if self.mask_flag:
            self.weight[self.mask == 0] = 0  # expect: GG108
        return F.linear(x, self.weight, self.bias)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = MaskedLinear(10, 16)
        self.fc2 = MaskedLinear(16, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))  # also: GG108

    def prune(self, pct):
        for layer in (self.fc1, self.fc2):
            w = layer.weight.detach().abs()
            thresh = w.flatten().kthvalue(int(w.numel() * pct)).values
            layer.set_mask((w > thresh).float())


def main():
    torch.manual_seed(0)
    net = MLP()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, y = torch.randn(8, 10), torch.randint(0, 4, (8,))
    net.prune(0.5)
    for _ in range(2):
        opt.zero_grad()
        F.cross_entropy(net(x), y).backward()
        opt.step()


if __name__ == "__main__":
    main()
