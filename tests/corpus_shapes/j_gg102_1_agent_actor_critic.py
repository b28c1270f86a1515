# corpus: A2C Agent computes policy and value losses from one shared body in compute_losses, then update() backpropagates them one after the other
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG102.md (shape: 1)
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh())
        self.pi = nn.Linear(16, n_actions)
        self.v = nn.Linear(16, 1)

    def forward(self, obs):
        feats = self.body(obs)
        return self.pi(feats), self.v(feats).squeeze(-1)


class Agent:
    def __init__(self, model, optimizer, value_coef=0.5):
        self.model = model
        self.optimizer = optimizer
        self.value_coef = value_coef

    def compute_losses(self, batch):
        obs, actions, returns = batch
        logits, values = self.model(obs)
        advantages = (returns - values).detach()
        logp = F.log_softmax(logits, dim=-1).gather(1, actions[:, None]).squeeze(1)
        policy_loss = -(logp * advantages).mean()
        value_loss = self.value_coef * F.mse_loss(values, returns)
        return policy_loss, value_loss

    def update(self, batch):
        policy_loss, value_loss = self.compute_losses(batch)
        self.optimizer.zero_grad()
        policy_loss.backward()
        value_loss.backward()  # expect: GG102
        self.optimizer.step()
        return policy_loss.item(), value_loss.item()

    def fit(self, batches):
        return [self.update(b) for b in batches]


torch.manual_seed(0)
model = ActorCritic()
agent = Agent(model, torch.optim.Adam(model.parameters(), lr=1e-3))
batches = [(torch.randn(6, 4), torch.randint(0, 2, (6,)), torch.randn(6)) for _ in range(2)]
print(agent.fit(batches))
