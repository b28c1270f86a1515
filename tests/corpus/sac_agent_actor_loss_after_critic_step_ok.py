# corpus: the same SAC agent computes the policy loss after the Q step (correct)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class QNet(nn.Module):
    def __init__(self, s_dim=3, a_dim=1):
        super().__init__()
        self.fc1 = nn.Linear(s_dim + a_dim, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, s, a):
        return self.fc2(F.relu(self.fc1(torch.cat([s, a], dim=1))))


class Agent:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1), nn.Tanh())
        self.q = QNet()
        self.q_opt = torch.optim.Adam(self.q.parameters(), lr=3e-4)
        self.pi_opt = torch.optim.Adam(self.policy.parameters(), lr=3e-4)

    def update(self, s, a, target):
        q_loss = F.mse_loss(self.q(s, a), target)
        self.q_opt.zero_grad()
        q_loss.backward()
        self.q_opt.step()
        pi_loss = -self.q(s, self.policy(s)).mean()
        self.pi_opt.zero_grad()
        pi_loss.backward()
        self.pi_opt.step()


agent = Agent()
for _ in range(2):
    agent.update(torch.randn(8, 3), torch.rand(8, 1) * 2 - 1, torch.randn(8, 1))
