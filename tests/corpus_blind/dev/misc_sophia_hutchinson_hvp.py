# corpus: Sophia-style optimizer estimates the Hessian diagonal with Hutchinson's HVP on p.grad, but the training loop's backward built no graph for the gradients
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/kyegomez/Sophia/issues/7
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SophiaLike(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.965, 0.99), rho=0.04, k=2):
        defaults = dict(lr=lr, betas=betas, rho=rho, k=k)
        super().__init__(params, defaults)

    def hutchinson(self, p, grad):
        u = torch.randn_like(grad)
        hvp = torch.autograd.grad((grad * u).sum(), p, retain_graph=True)[0]  # also: GG106
        return u * hvp

    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["hessian"] = torch.zeros_like(p)
                state["step"] += 1
                grad = p.grad
                state["exp_avg"].mul_(beta1).add_(grad.detach(), alpha=1 - beta1)
                if state["step"] % group["k"] == 1:
                    h = self.hutchinson(p, grad)
                    state["hessian"].mul_(beta2).add_(h.detach(), alpha=1 - beta2)
                ratio = (state["exp_avg"] / (group["rho"] * state["hessian"] + 1e-15)).clamp(-1, 1)
                p.data.add_(ratio, alpha=-group["lr"])


class TabularNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def train(model, optimizer, batches):
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()  # expect: GG106
        optimizer.step()


def main():
    model = TabularNet()
    optimizer = SophiaLike(model.parameters(), lr=1e-2)
    batches = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(3)]
    train(model, optimizer, batches)


if __name__ == "__main__":
    main()
