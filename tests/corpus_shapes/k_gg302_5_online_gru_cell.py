# corpus: online learner keeps self.hidden across step() calls without detach and hides the resulting error with backward(retain_graph=True); the optimizer step makes the second backward fail on the old weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: docs/rules/GG302.md (shape: 5)
import torch
import torch.nn as nn
import torch.nn.functional as F


class OnlineLearner:
    def __init__(self, cell, policy, optimizer):
        self.cell = cell
        self.policy = policy
        self.optimizer = optimizer
        self.hidden = torch.zeros(1, cell.hidden_size)

    def step(self, obs, action):
        self.hidden = self.cell(obs, self.hidden)  # also: GG302
        loss = F.cross_entropy(self.policy(self.hidden), action)
        self.optimizer.zero_grad()
        loss.backward(retain_graph=True)  # expect: GG302
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    cell = nn.GRUCell(3, 6)
    policy = nn.Linear(6, 2)
    optimizer = torch.optim.SGD(list(cell.parameters()) + list(policy.parameters()), lr=0.01)
    learner = OnlineLearner(cell, policy, optimizer)
    for t in range(4):
        learner.step(torch.randn(1, 3), torch.randint(0, 2, (1,)))


if __name__ == "__main__":
    main()
