import torch
import torch.nn as nn
import torch.nn.functional as F


class StateValueFunction(nn.Module):
    """V(s) with its own loss and plain gradient-descent step."""

    def __init__(self, state_dim, hidden=32, lr=1e-2):
        super().__init__()
        self.fc1 = nn.Linear(state_dim, hidden)
        self.fc2 = nn.Linear(hidden, 1)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=lr)

    def forward(self, state):
        return self.fc2(torch.tanh(self.fc1(state)))

    def mse_loss(self, prediction, target):
        return F.mse_loss(prediction, target)

    def sgd(self, loss):
        self.optimizer.zero_grad()
        loss.backward()  # also: GG102
        self.optimizer.step()


class ActionValueFunction(nn.Module):
    """Q(s, a) for a discrete action given as a one-hot vector."""

    def __init__(self, state_dim, n_actions, hidden=32, lr=1e-2):
        super().__init__()
        self.n_actions = n_actions
        self.fc1 = nn.Linear(state_dim + n_actions, hidden)
        self.fc2 = nn.Linear(hidden, 1)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=lr)

    def forward(self, state, action):
        one_hot = F.one_hot(action, self.n_actions).float()
        return self.fc2(torch.tanh(self.fc1(torch.cat([state, one_hot], dim=-1))))

    def mse_loss(self, prediction, target):
        return F.mse_loss(prediction, target)

    def sgd(self, loss):
        self.optimizer.zero_grad()
        loss.backward()  # also: GG102
        self.optimizer.step()
