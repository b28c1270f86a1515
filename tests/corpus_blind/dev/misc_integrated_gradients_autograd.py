# corpus: integrated-gradients attribution loops over interpolation steps on one input leaf, but takes each step's gradient with autograd.grad so nothing accumulates in .grad, then converts to numpy after detach (correct)
# source: https://github.com/meta-pytorch/captum/issues/1037
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class TabularModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))

    def forward(self, x):
        return self.net(x)


class IntegratedGradients:
    def __init__(self, forward_func):
        self.forward_func = forward_func

    def attribute(self, inputs, baselines, target, n_steps=64):
        total_grads = torch.zeros_like(inputs)
        for k in range(1, n_steps + 1):
            alpha = (k - 0.5) / n_steps
            scaled = (baselines + alpha * (inputs - baselines)).requires_grad_(True)
            out = self.forward_func(scaled)[:, target].sum()
            grads, = torch.autograd.grad(out, scaled)
            total_grads += grads
        return (inputs - baselines) * total_grads / n_steps


def main():
    model = TabularModel().eval()
    x = torch.randn(2, 6)
    baseline = torch.zeros_like(x)
    ig = IntegratedGradients(model)
    attributions = ig.attribute(x, baseline, target=1)
    attr_np = attributions.detach().numpy()
    with torch.no_grad():
        delta = model(x)[:, 1] - model(baseline)[:, 1]
    assert np.allclose(attr_np.sum(axis=1), delta.numpy(), atol=1e-2)  # completeness axiom
    assert attributions.grad_fn is None
    assert all(p.grad is None for p in model.parameters())


if __name__ == "__main__":
    main()
