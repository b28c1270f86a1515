# corpus: an A2C agent stores (state, log_prob, value) in a transition list, extends it in another method, then steps the optimizer between the value and policy backward passes
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn


class Agent:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.transition = []

    def select_action(self, state):
        out = self.net(state)
        value, log_prob = out[0], torch.log_softmax(out, dim=0)[1]
        self.transition = [state, log_prob, value]
        return 1

    def step(self, action):
        self.transition.extend([torch.randn(3), 1.0, False])

    def update_model(self):
        state, log_prob, value, next_state, reward, done = self.transition
        value_loss = (reward - value) ** 2
        self.optimizer.zero_grad()
        value_loss.backward(retain_graph=True)
        self.optimizer.step()  # expect: GG111
        policy_loss = -log_prob * (reward - value.detach())
        policy_loss.backward()
        self.optimizer.step()


torch.manual_seed(0)
agent = Agent()
for _ in range(3):
    agent.step(agent.select_action(torch.randn(3)))
    agent.update_model()
