# corpus: PINN for a 1-D ODE whose forward computes u_t with autograd.grad; a Levenberg-Marquardt style trainer evaluates the candidate loss under torch.no_grad(), so the derivative inside forward has no graph to differentiate.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/fabiodimarco/torch-levenberg-marquardt/issues/7
import math

import torch
import torch.nn as nn

num_steps = 16
t = torch.linspace(0.0, 1.0, num_steps).reshape(-1, 1).requires_grad_(True)


class PINN(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, t):
        u = self.model(t)
        u_t = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), create_graph=True)[0]  # also: GG106
        residual = u_t - torch.cos(2 * math.pi * t)
        return torch.cat([residual, u[:1]], dim=0)


class LMTrainer:
    """Damped Gauss-Newton trainer: propose a step, accept it if the loss went down."""

    def __init__(self, model, damping=1e-2):
        self.model = model
        self.damping = damping

    def residuals(self, inputs):
        return self.model(inputs).view(-1)

    def evaluate_loss(self, inputs):
        with torch.no_grad():  # expect: GG106
            r = self.residuals(inputs)
        return (r ** 2).mean()

    def train_step(self, inputs):
        params = list(self.model.parameters())
        r = self.residuals(inputs)
        loss = (r ** 2).mean()
        grads = torch.autograd.grad(loss, params)
        old = [p.detach().clone() for p in params]
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= g / (1.0 + self.damping)
        new_loss = self.evaluate_loss(inputs)
        if new_loss > loss.detach():
            with torch.no_grad():
                for p, o in zip(params, old):
                    p.copy_(o)
            self.damping *= 10
        else:
            self.damping /= 10
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = LMTrainer(PINN())
    for step in range(3):
        print("step", step, "loss", trainer.train_step(t))


if __name__ == "__main__":
    main()
