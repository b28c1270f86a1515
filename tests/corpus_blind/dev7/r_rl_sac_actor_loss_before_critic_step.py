# corpus: SAC agent update_network computes the actor loss through the critic's Q-values, steps the critic optimizer, then backpropagates the stale actor loss
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/TianhongDai/reinforcement-learning-algorithms/issues/8
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class QNetwork(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.q1 = nn.Sequential(nn.Linear(obs_dim + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.q2 = nn.Sequential(nn.Linear(obs_dim + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs, action):
        x = torch.cat([obs, action], dim=1)
        return self.q1(x), self.q2(x)


class TanhGaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU())
        self.mean = nn.Linear(hidden, act_dim)
        self.log_std = nn.Linear(hidden, act_dim)

    def forward(self, obs):
        h = self.body(obs)
        return self.mean(h), self.log_std(h).clamp(-20, 2)

    def sample(self, obs):
        mean, log_std = self(obs)
        dist = torch.distributions.Normal(mean, log_std.exp())
        pre_tanh = dist.rsample()
        action = torch.tanh(pre_tanh)
        log_prob = dist.log_prob(pre_tanh) - torch.log(1 - action.pow(2) + 1e-6)
        return action, log_prob.sum(1, keepdim=True)


class ReplayBuffer:
    def __init__(self, obs_dim, act_dim, size=256):
        self.obs = torch.randn(size, obs_dim)
        self.actions = torch.rand(size, act_dim) * 2 - 1
        self.rewards = torch.randn(size, 1)
        self.next_obs = torch.randn(size, obs_dim)
        self.dones = torch.zeros(size, 1)

    def sample(self, batch_size):
        idx = torch.randint(0, self.obs.shape[0], (batch_size,))
        return self.obs[idx], self.actions[idx], self.rewards[idx], self.next_obs[idx], self.dones[idx]


class SACAgent:
    def __init__(self, args, obs_dim=6, act_dim=2):
        self.args = args
        self.qf = QNetwork(obs_dim, act_dim)
        self.target_qf = copy.deepcopy(self.qf)
        self.actor_net = TanhGaussianPolicy(obs_dim, act_dim)
        self.qf_optim = torch.optim.Adam(self.qf.parameters(), lr=args.q_lr)
        self.actor_optim = torch.optim.Adam(self.actor_net.parameters(), lr=args.p_lr)
        self.buffer = ReplayBuffer(obs_dim, act_dim)

    def _update_network(self):
        obs, actions, rewards, next_obs, dones = self.buffer.sample(self.args.batch_size)
        alpha = self.args.entropy_weights
        actions_, log_prob = self.actor_net.sample(obs)
        q_actions_ = torch.min(*self.qf(obs, actions_))
        actor_loss = (alpha * log_prob - q_actions_).mean()
        q1_value, q2_value = self.qf(obs, actions)
        with torch.no_grad():
            next_actions, next_log_prob = self.actor_net.sample(next_obs)
            target_q = torch.min(*self.target_qf(next_obs, next_actions)) - alpha * next_log_prob
            target_q_value = rewards + (1 - dones) * self.args.gamma * target_q
        qf_loss = F.mse_loss(q1_value, target_q_value) + F.mse_loss(q2_value, target_q_value)
        self.qf_optim.zero_grad()
        qf_loss.backward()
        self.qf_optim.step()  # expect: GG111
        self.actor_optim.zero_grad()
        actor_loss.backward()  # also: GG111
        self.actor_optim.step()
        return qf_loss.item(), actor_loss.item()

    def learn(self):
        for _ in range(self.args.n_updates):
            self._update_network()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--q-lr", type=float, default=3e-4)
    parser.add_argument("--p-lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--entropy-weights", type=float, default=0.2)
    parser.add_argument("--n-updates", type=int, default=3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    SACAgent(args).learn()


if __name__ == "__main__":
    main()
