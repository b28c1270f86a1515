# corpus: IC3Net-style recurrent multi-agent trainer detaches (h, c) every detach_gap steps inside an episode and backprops once per batch of episodes (correct)
# source: https://github.com/IC3Net/IC3Net/issues/7
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Transition = namedtuple("Transition", ("log_prob", "value", "reward"))


class CommNetMLP(nn.Module):
    def __init__(self, obs_dim=6, hid=12, n_actions=4, nagents=3):
        super().__init__()
        self.nagents, self.hid = nagents, hid
        self.encoder = nn.Linear(obs_dim, hid)
        self.f_module = nn.LSTMCell(hid, hid)
        self.C = nn.Linear(hid, hid)
        self.heads = nn.Linear(hid, n_actions)
        self.value_head = nn.Linear(hid, 1)

    def init_hidden(self):
        return (torch.zeros(self.nagents, self.hid), torch.zeros(self.nagents, self.hid))

    def forward(self, x, prev_hid):
        h, c = prev_hid
        comm = self.C(h).mean(0, keepdim=True).expand_as(h)
        h, c = self.f_module(torch.tanh(self.encoder(x)) + comm, (h, c))
        return F.log_softmax(self.heads(h), dim=-1), self.value_head(h), (h, c)


class Trainer:
    def __init__(self, policy_net, detach_gap=3, max_steps=7):
        self.policy_net = policy_net
        self.detach_gap = detach_gap
        self.max_steps = max_steps
        self.optimizer = torch.optim.RMSprop(policy_net.parameters(), lr=1e-3)

    def get_episode(self):
        episode = []
        prev_hid = self.policy_net.init_hidden()
        for t in range(self.max_steps):
            state = torch.randn(self.policy_net.nagents, 6)
            action_out, value, prev_hid = self.policy_net(state, prev_hid)
            if (t + 1) % self.detach_gap == 0:
                prev_hid = (prev_hid[0].detach(), prev_hid[1].detach())
            action = torch.multinomial(action_out.exp(), 1)
            reward = torch.randn(self.policy_net.nagents)
            episode.append(Transition(action_out.gather(1, action).squeeze(1), value.squeeze(1), reward))
        return episode

    def compute_grad(self, batch):
        log_probs = torch.stack([tr.log_prob for tr in batch])
        values = torch.stack([tr.value for tr in batch])
        rewards = torch.stack([tr.reward for tr in batch])
        returns = torch.flip(torch.cumsum(torch.flip(rewards, [0]), 0), [0])
        advantages = returns - values.detach()
        action_loss = -(log_probs * advantages).sum()
        value_loss = (values - returns).pow(2).sum()
        loss = action_loss + 0.05 * value_loss
        loss.backward()
        return {"action_loss": action_loss.item(), "value_loss": value_loss.item()}

    def train_batch(self, n_episodes=2):
        batch = []
        for _ in range(n_episodes):
            batch += self.get_episode()
        self.optimizer.zero_grad()
        stat = self.compute_grad(batch)
        self.optimizer.step()
        return stat


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(CommNetMLP())
    stats = [trainer.train_batch() for _ in range(3)]
    assert all(isinstance(v, float) for s in stats for v in s.values())
    assert all(p.grad is not None for p in trainer.policy_net.parameters())
