# corpus: an A3C-style worker keeps its LSTMCell state on the agent across updates; each update stacks the values of a rollout and backpropagates, so the next rollout runs into the freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn


class Worker:
    def __init__(self, model):
        self.model = model
        self.hx = torch.zeros(1, 8)
        self.cx = torch.zeros(1, 8)
        self.values = []

    def act(self, obs):
        self.hx, self.cx = self.model["cell"](obs, (self.hx, self.cx))  # expect: GG104
        self.values.append(self.model["critic"](self.hx))


torch.manual_seed(0)
model = nn.ModuleDict({"cell": nn.LSTMCell(4, 8), "critic": nn.Linear(8, 1)})
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
worker = Worker(model)
for update in range(3):
    for t in range(4):
        worker.act(torch.randn(1, 4))
    loss = torch.stack(worker.values).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    worker.values = []
