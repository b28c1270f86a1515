# corpus: actor-critic trainer with a shared encoder: actor loss uses the detached critic baseline, both losses are backpropagated from one forward (retain_graph on the first) and a single optimizer step follows
# source: https://github.com/astariul/encode-attend-navigate-pytorch/pull/3
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Encoder(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden))

    def forward(self, x):
        return self.net(x)


class Actor(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.query = nn.Linear(hidden, hidden)

    def forward(self, enc):
        scores = (self.query(enc.mean(1, keepdim=True)) * enc).sum(-1)
        return Categorical(logits=scores)


class Critic(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, enc):
        return self.ff(enc.mean(1)).squeeze(-1)


class Trainer:
    def __init__(self, in_dim=2, hidden=16, lr=1e-3, max_grad_norm=2.0):
        self.encoder = Encoder(in_dim, hidden)
        self.actor = Actor(hidden)
        self.critic = Critic(hidden)
        params = [*self.encoder.parameters(), *self.actor.parameters(), *self.critic.parameters()]
        self.params = params
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.max_grad_norm = max_grad_norm

    @staticmethod
    def reward_fn(cities, picks):
        chosen = cities[torch.arange(cities.size(0)), picks]
        return -chosen.norm(dim=-1)

    def train_step(self, cities):
        enc = self.encoder(cities)
        dist = self.actor(enc)
        picks = dist.sample()
        log_prob = dist.log_prob(picks)
        predictions = self.critic(enc)
        reward = self.reward_fn(cities, picks)

        actor_loss = ((reward - predictions).detach() * log_prob).mean()
        critic_loss = nn.functional.mse_loss(predictions, reward)

        self.optimizer.zero_grad()
        actor_loss.backward(retain_graph=True)
        critic_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.params, self.max_grad_norm)
        self.optimizer.step()
        return {"actor_loss": actor_loss.item(), "critic_loss": critic_loss.item(),
                "reward": reward.mean().item()}


def main():
    torch.manual_seed(0)
    trainer = Trainer()
    logs = []
    for step in range(4):
        cities = torch.rand(8, 10, 2)
        logs.append(trainer.train_step(cities))
    return trainer, logs


if __name__ == "__main__":
    trainer, logs = main()
    for module in (trainer.encoder, trainer.actor, trainer.critic):
        assert all(p.grad is not None for p in module.parameters())
    assert all(isinstance(v, float) for log in logs for v in log.values())
