# corpus: recurrent (GRU) actor-critic agent object keeps self.hidden across rollouts; a helper resets it on done and detaches it otherwise before each rollout; loss terms logged in a dict via .item()
# source: https://github.com/vietnh1009/Super-mario-bros-A3C-pytorch/issues/1
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class RecurrentActorCritic(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden=24):
        super().__init__()
        self.hidden_size = hidden
        self.conv_like = nn.Sequential(nn.Linear(num_inputs, hidden), nn.ReLU())
        self.gru = nn.GRUCell(hidden, hidden)
        self.heads = nn.ModuleDict({"actor": nn.Linear(hidden, num_actions), "critic": nn.Linear(hidden, 1)})

    def forward(self, x, h):
        h = self.gru(self.conv_like(x), h)
        return self.heads["actor"](h), self.heads["critic"](h), h


class Worker:
    def __init__(self, model, lr=1e-4, gamma=0.9, beta=0.01, num_local_steps=6):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.gamma = gamma
        self.beta = beta
        self.num_local_steps = num_local_steps
        self.hidden = None
        self.done = True
        self.state = torch.randn(1, 10)
        self.episode_steps = 0
        self.log = defaultdict(float)

    def _prepare_hidden(self):
        if self.done:
            self.hidden = torch.zeros(1, self.model.hidden_size)
            self.episode_steps = 0
        else:
            self.hidden = self.hidden.detach()

    def rollout(self):
        self._prepare_hidden()
        log_policies, values, rewards, entropies = [], [], [], []
        for _ in range(self.num_local_steps):
            logits, value, self.hidden = self.model(self.state, self.hidden)
            dist = Categorical(logits=logits)
            action = dist.sample()
            log_policies.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            values.append(value.squeeze(-1))
            self.state = torch.randn(1, 10)
            self.episode_steps += 1
            rewards.append(float(action.item() == 1))
            self.done = self.episode_steps >= 9
            if self.done:
                break
        if self.done:
            R = torch.zeros(1)
        else:
            with torch.no_grad():
                _, R, _ = self.model(self.state, self.hidden)
            R = R.squeeze(-1)
        return log_policies, values, rewards, entropies, R

    def update(self):
        log_policies, values, rewards, entropies, R = self.rollout()
        actor_loss, critic_loss, entropy_loss = 0, 0, 0
        gae = torch.zeros(1)
        next_value = R
        for value, log_policy, reward, entropy in list(zip(values, log_policies, rewards, entropies))[::-1]:
            gae = gae * self.gamma + reward + self.gamma * next_value.detach() - value.detach()
            next_value = value
            actor_loss = actor_loss + log_policy * gae
            R = R * self.gamma + reward
            critic_loss = critic_loss + (R - value) ** 2 / 2
            entropy_loss = entropy_loss + entropy
        total_loss = (-actor_loss + critic_loss - self.beta * entropy_loss).sum()
        self.optimizer.zero_grad()
        total_loss.backward()
        self.optimizer.step()
        self.log["actor_loss"] += actor_loss.sum().item()
        self.log["critic_loss"] += critic_loss.sum().item()
        self.log["updates"] += 1
        return total_loss.item()


def main():
    torch.manual_seed(0)
    worker = Worker(RecurrentActorCritic(10, 4))
    for _ in range(5):
        worker.update()
    return worker


if __name__ == "__main__":
    worker = main()
    assert all(p.grad is not None for p in worker.model.parameters())
    assert all(isinstance(v, float) for v in worker.log.values())
    assert worker.log["updates"] == 5
