# corpus: DQN with a deep-copied target network evaluated under no_grad; the TD target carries no graph (correct)
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class DQNAgent:
    def __init__(self):
        self.q = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.target = copy.deepcopy(self.q)
        self.optimizer = torch.optim.Adam(self.q.parameters(), lr=1e-3)
        self.losses = []

    def update(self, s, a, r, s2):
        with torch.no_grad():
            td_target = r + 0.99 * self.target(s2).max(dim=1).values
        q = self.q(s).gather(1, a.unsqueeze(1)).squeeze(1)
        loss = F.smooth_l1_loss(q, td_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.losses.append(loss.item())

    def sync(self):
        self.target.load_state_dict(self.q.state_dict())


torch.manual_seed(0)
agent = DQNAgent()
for step in range(4):
    agent.update(torch.randn(8, 4), torch.randint(0, 2, (8,)), torch.randn(8), torch.randn(8, 4))
    if step % 2 == 1:
        agent.sync()
assert all(p.grad is None for p in agent.target.parameters())
