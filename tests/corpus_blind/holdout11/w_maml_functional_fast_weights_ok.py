# corpus: MAML regressor adapts out of place with updated_params[name] = param - step_size * grad from autograd.grad(create_graph=True); the query losses backprop to the meta-parameters: correct
# source: https://github.com/tristandeleu/pytorch-maml-rl/issues/8
import math
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class MetaModule(nn.Module):
    def update_params(self, loss, step_size=0.01, first_order=False, params=None):
        params = OrderedDict(self.named_parameters()) if params is None else params
        grads = torch.autograd.grad(loss, params.values(), create_graph=not first_order)
        updated_params = OrderedDict()
        for (name, param), grad in zip(params.items(), grads):
            updated_params[name] = param - step_size * grad
        return updated_params


class MetaMLP(MetaModule):
    def __init__(self, hidden=16):
        super().__init__()
        self.layer1 = nn.Linear(1, hidden)
        self.layer2 = nn.Linear(hidden, 1)

    def forward(self, x, params=None):
        if params is None:
            params = OrderedDict(self.named_parameters())
        h = F.relu(F.linear(x, params["layer1.weight"], params["layer1.bias"]))
        return F.linear(h, params["layer2.weight"], params["layer2.bias"])


def sample_sine_task(k=5):
    amplitude, phase = torch.empty(1).uniform_(0.5, 2.0), torch.empty(1).uniform_(0, math.pi)
    def draw():
        x = torch.empty(k, 1).uniform_(-5, 5)
        return x, amplitude * torch.sin(x + phase)
    return draw(), draw()


class MetaLearner:
    def __init__(self, model, num_steps=2, meta_lr=1e-3):
        self.model = model
        self.num_steps = num_steps
        self.meta_optimizer = torch.optim.Adam(model.parameters(), lr=meta_lr)

    def adapt(self, support):
        x, y = support
        params = None
        for _ in range(self.num_steps):
            inner_loss = F.mse_loss(self.model(x, params=params), y)
            params = self.model.update_params(inner_loss, params=params)
        return params

    def step(self, tasks):
        losses = []
        for support, query in tasks:
            params = self.adapt(support)
            x_q, y_q = query
            losses.append(F.mse_loss(self.model(x_q, params=params), y_q))
        meta_loss = torch.stack(losses).mean()
        self.meta_optimizer.zero_grad()
        meta_loss.backward()
        self.meta_optimizer.step()
        return meta_loss.item()


def main():
    torch.manual_seed(0)
    model = MetaMLP()
    learner = MetaLearner(model)
    before = model.layer1.weight.detach().clone()
    for it in range(4):
        tasks = [sample_sine_task() for _ in range(3)]
        print("meta-iteration", it, "query loss", learner.step(tasks))
    print("meta-parameters moved", (model.layer1.weight - before).abs().max().item())


if __name__ == "__main__":
    main()
