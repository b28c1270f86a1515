# corpus: multi-agent comm trainer meant to truncate BPTT every detach_gap steps but calls .detach() on the hidden-state tuple members as bare statements
# source: https://github.com/IC3Net/IC3Net/issues/7
from types import SimpleNamespace

import torch
import torch.nn as nn
from torch.distributions import Categorical


class CommNetMLP(nn.Module):
    def __init__(self, args, num_inputs):
        super().__init__()
        self.args = args
        self.encoder = nn.Linear(num_inputs, args.hid_size)
        self.f_module = nn.LSTMCell(args.hid_size, args.hid_size)
        self.C = nn.Linear(args.hid_size, args.hid_size)
        self.heads = nn.ModuleDict({"action": nn.Linear(args.hid_size, args.naction),
                                    "value": nn.Linear(args.hid_size, 1)})

    def init_hidden(self, batch_size):
        n = batch_size * self.args.nagents
        return (torch.zeros(n, self.args.hid_size), torch.zeros(n, self.args.hid_size))

    def forward(self, x, prev_hid):
        x = self.encoder(x)
        hidden_state, cell_state = prev_hid
        comm = hidden_state.mean(0, keepdim=True).expand_as(hidden_state)
        hidden_state, cell_state = self.f_module(x + self.C(comm), (hidden_state, cell_state))
        action_out = torch.log_softmax(self.heads["action"](hidden_state), dim=-1)
        value = self.heads["value"](hidden_state)
        return action_out, value, (hidden_state.clone(), cell_state.clone())


class Trainer:
    def __init__(self, args, policy_net):
        self.args = args
        self.policy_net = policy_net
        self.optimizer = torch.optim.RMSprop(policy_net.parameters(), lr=args.lrate)
        self.stats = {}

    def _maybe_truncate(self, t, prev_hid):
        if (t + 1) % self.args.detach_gap == 0:
            prev_hid[0].detach()  # expect: GG112
            prev_hid[1].detach()  # expect: GG112
        return prev_hid

    def get_episode(self):
        episode = []
        prev_hid = self.policy_net.init_hidden(batch_size=1)
        for t in range(self.args.max_steps):
            state = torch.randn(self.args.nagents, self.args.obs_dim)
            prev_hid = self._maybe_truncate(t, prev_hid)
            action_out, value, prev_hid = self.policy_net(state, prev_hid)
            dist = Categorical(logits=action_out)
            action = dist.sample()
            reward = (action == 0).float()
            episode.append((dist.log_prob(action), value.squeeze(-1), reward))
        return episode

    def compute_grad(self, episode):
        gamma = self.args.gamma
        returns = []
        R = torch.zeros(self.args.nagents)
        for _, _, r in reversed(episode):
            R = r + gamma * R
            returns.insert(0, R)
        log_probs = torch.stack([lp for lp, _, _ in episode])
        values = torch.stack([v for _, v, _ in episode])
        returns = torch.stack(returns)
        advantages = returns - values.detach()
        action_loss = -(log_probs * advantages).sum()
        value_loss = (values - returns).pow(2).sum()
        loss = action_loss + self.args.value_coeff * value_loss
        loss.backward()
        self.stats["loss"] = loss.item()

    def train_batch(self):
        episode = self.get_episode()
        self.optimizer.zero_grad()
        self.compute_grad(episode)
        self.optimizer.step()
        return self.stats


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(nagents=3, obs_dim=6, hid_size=16, naction=4, max_steps=12,
                           detach_gap=4, gamma=0.99, value_coeff=0.01, lrate=1e-3)
    policy_net = CommNetMLP(args, args.obs_dim)
    trainer = Trainer(args, policy_net)
    for _ in range(2):
        trainer.train_batch()
    return trainer, policy_net


if __name__ == "__main__":
    trainer, policy_net = main()
    # ground truth: at a truncation step the hidden state still carries its graph (nothing was cut)
    _, _, hid = policy_net(torch.randn(3, 6), policy_net.init_hidden(1))
    kept = trainer._maybe_truncate(trainer.args.detach_gap - 1, hid)
    assert kept[0].grad_fn is not None and kept[1].grad_fn is not None
