# corpus: an agent keeps its LSTMCell state (h, c) on itself and reads it through a static helper; the state is never detached between updates
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn


class Agent:
    def __init__(self):
        self.cell = nn.LSTMCell(4, 8)
        self.head = nn.Linear(8, 1)
        self.opt = torch.optim.SGD([*self.cell.parameters(), *self.head.parameters()], lr=0.1)
        self.hx = torch.zeros(1, 8)
        self.cx = torch.zeros(1, 8)

    @staticmethod
    def observe(scale):
        return torch.randn(1, 4) * scale

    def act(self):
        self.hx, self.cx = self.cell(self.observe(0.5), (self.hx, self.cx))  # expect: GG104
        return self.head(self.hx)

    def update(self, value):
        loss = value.pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


torch.manual_seed(0)
agent = Agent()
for step in range(3):
    agent.update(agent.act())
