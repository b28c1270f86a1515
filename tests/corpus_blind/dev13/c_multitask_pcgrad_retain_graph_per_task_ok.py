# corpus: PCGrad optimizer wrapper (Pytorch-PCGrad shape) for a shared-trunk two-head multi-task model: pc_backward backpropagates each task loss separately with retain_graph=True to read every task's gradient, projects away the conflicting components, writes the combined gradient back and steps once; correct
# source: https://github.com/WeiChengTseng/Pytorch-PCGrad/issues/1
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class PCGrad:
    def __init__(self, optimizer, reduction="mean"):
        self._optim, self._reduction = optimizer, reduction

    @property
    def optimizer(self):
        return self._optim

    def zero_grad(self):
        return self._optim.zero_grad(set_to_none=True)

    def step(self):
        return self._optim.step()

    def pc_backward(self, objectives):
        grads, shapes, has_grads = self._pack_grad(objectives)
        pc_grad = self._project_conflicting(grads, has_grads)
        self._set_grad(self._unflatten_grad(pc_grad, shapes[0]))

    def _project_conflicting(self, grads, has_grads):
        shared = torch.stack(has_grads).prod(0).bool()
        pc_grad = [g.clone() for g in grads]
        for g_i in pc_grad:
            random.shuffle(grads)
            for g_j in grads:
                g_i_g_j = torch.dot(g_i, g_j)
                if g_i_g_j < 0:
                    g_i -= g_i_g_j * g_j / (g_j.norm() ** 2)
        merged = torch.zeros_like(grads[0])
        stacked = torch.stack(pc_grad)
        merged[shared] = stacked[:, shared].mean(0) if self._reduction == "mean" else stacked[:, shared].sum(0)
        merged[~shared] = stacked[:, ~shared].sum(0)
        return merged

    def _pack_grad(self, objectives):
        grads, shapes, has_grads = [], [], []
        for obj in objectives:
            self._optim.zero_grad(set_to_none=True)
            obj.backward(retain_graph=True)
            grad, shape, has_grad = self._retrieve_grad()
            grads.append(torch.cat([g.flatten() for g in grad]))
            has_grads.append(torch.cat([h.flatten() for h in has_grad]))
            shapes.append(shape)
        return grads, shapes, has_grads

    def _retrieve_grad(self):
        grad, shape, has_grad = [], [], []
        for group in self._optim.param_groups:
            for p in group["params"]:
                shape.append(p.shape)
                if p.grad is None:
                    grad.append(torch.zeros_like(p))
                    has_grad.append(torch.zeros_like(p))
                else:
                    grad.append(p.grad.clone())
                    has_grad.append(torch.ones_like(p))
        return grad, shape, has_grad

    def _unflatten_grad(self, grads, shapes):
        out, idx = [], 0
        for shape in shapes:
            length = int(np.prod(shape))
            out.append(grads[idx:idx + length].view(shape).clone())
            idx += length
        return out

    def _set_grad(self, grads):
        idx = 0
        for group in self._optim.param_groups:
            for p in group["params"]:
                p.grad = grads[idx]
                idx += 1


class MultiLeNet(nn.Module):
    def __init__(self, in_dim=36, hidden=50, n_classes=10):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.left_head = nn.Linear(hidden, n_classes)
        self.right_head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h = self.trunk(x)
        return self.left_head(h), self.right_head(h)


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    net = MultiLeNet()
    optimizer = PCGrad(torch.optim.Adam(net.parameters(), lr=1e-3))
    for epoch in range(2):
        for step in range(5):
            x = torch.randn(32, 36)
            y_left, y_right = torch.randint(0, 10, (32,)), torch.randint(0, 10, (32,))
            out_left, out_right = net(x)
            losses = [F.cross_entropy(out_left, y_left), F.cross_entropy(out_right, y_right)]
            optimizer.zero_grad()
            optimizer.pc_backward(losses)
            optimizer.step()
        print(f"epoch {epoch}: left {losses[0].item():.4f} right {losses[1].item():.4f}")


if __name__ == "__main__":
    main()
