# corpus: AdaHessian-style optimizer estimates the Hessian diagonal with Hutchinson probes via autograd.grad on p.grad; the train loop calls loss.backward(create_graph=True) so the grads carry a graph
# source: https://github.com/davda54/ada-hessian/issues/6
import torch
import torch.nn as nn
import torch.nn.functional as F


class AdaHessian(torch.optim.Optimizer):
    def __init__(self, params, lr=0.1, betas=(0.9, 0.999), eps=1e-8, hessian_power=1.0, n_samples=1):
        defaults = dict(lr=lr, betas=betas, eps=eps, hessian_power=hessian_power)
        super().__init__(params, defaults)
        self.n_samples = n_samples
        self.generator = torch.Generator().manual_seed(2147483647)

    def get_params(self):
        return [p for group in self.param_groups for p in group["params"] if p.requires_grad]

    @torch.no_grad()
    def set_hessian(self):
        params = [p for p in self.get_params() if p.grad is not None]
        for p in params:
            self.state[p]["hess"] = torch.zeros_like(p)
        grads = [p.grad for p in params]
        for _ in range(self.n_samples):
            zs = [torch.randint(0, 2, p.size(), generator=self.generator) * 2.0 - 1.0 for p in params]
            h_zs = torch.autograd.grad(grads, params, grad_outputs=zs, only_inputs=True, retain_graph=False)
            for h_z, z, p in zip(h_zs, zs, params):
                self.state[p]["hess"] += h_z * z / self.n_samples

    @torch.no_grad()
    def step(self, closure=None):
        self.set_hessian()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "step" not in state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_hessian_diag_sq"] = torch.zeros_like(p)
                state["step"] += 1
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                state["exp_hessian_diag_sq"].mul_(beta2).addcmul_(state["hess"], state["hess"], value=1 - beta2)
                bc1 = 1 - beta1 ** state["step"]
                bc2 = 1 - beta2 ** state["step"]
                denom = (state["exp_hessian_diag_sq"] / bc2).pow_(group["hessian_power"] / 2).add_(group["eps"])
                p.addcdiv_(state["exp_avg"], denom, value=-group["lr"] / bc1)


class WideMLP(nn.Module):
    def __init__(self, d_in=6, width=24, n_cls=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh())
        self.head = nn.Linear(width, n_cls)

    def forward(self, x):
        return self.head(self.body(x))


def train_epoch(model, optimizer, loader, epoch):
    model.train()
    running = 0.0
    for inputs, targets in loader:
        predictions = model(inputs)
        loss = F.cross_entropy(predictions, targets, label_smoothing=0.1)
        loss.backward(create_graph=True)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        running += loss.item()
    print(f"epoch {epoch}: loss {running / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    model = WideMLP()
    optimizer = AdaHessian(model.parameters(), lr=0.05)
    loader = [(torch.randn(16, 6), torch.randint(0, 3, (16,))) for _ in range(5)]
    for epoch in range(3):
        train_epoch(model, optimizer, loader, epoch)


if __name__ == "__main__":
    main()
