# corpus: an invariance penalty on the variance of per-environment weight gradients, taken with autograd.grad without create_graph=True; the penalty added to the objective is a constant and trains nothing
import torch
import torch.nn as nn
import torch.nn.functional as F


class IGA:
    def __init__(self, network, penalty):
        self.network = network
        self.penalty = penalty
        self.optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)

    def update(self, minibatches):
        total_loss = 0
        grads = []
        for x, y in minibatches:
            env_loss = F.cross_entropy(self.network(x), y)
            total_loss += env_loss
            grads.append(torch.autograd.grad(env_loss, self.network.weight, retain_graph=True)[0])  # expect: GG202
        mean_loss = total_loss / len(minibatches)
        mean_grad = sum(grads) / len(grads)
        penalty_value = 0
        for g in grads:
            penalty_value += (g - mean_grad).pow(2).sum()
        objective = mean_loss + self.penalty * penalty_value
        self.optimizer.zero_grad()
        objective.backward()
        self.optimizer.step()


torch.manual_seed(0)
algorithm = IGA(nn.Linear(4, 3), 10.0)
for step in range(2):
    algorithm.update([(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(3)])
