# corpus: CQL trainer (rlkit style) builds the policy loss through qf1/qf2 first, then steps the Q optimizers (retain_graph=True) and only afterwards backpropagates the policy loss through the already-updated Q weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/aviralkumar2907/CQL/issues/5
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class TanhGaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU())
        self.mean = nn.Linear(hidden, act_dim)
        self.log_std = nn.Linear(hidden, act_dim)

    def forward(self, obs):
        h = self.trunk(obs)
        mean, log_std = self.mean(h), self.log_std(h).clamp(-5, 2)
        dist = torch.distributions.Normal(mean, log_std.exp())
        pre_tanh = dist.rsample()
        action = torch.tanh(pre_tanh)
        log_pi = (dist.log_prob(pre_tanh) - torch.log(1 - action.pow(2) + 1e-6)).sum(-1, keepdim=True)
        return action, log_pi


class QFunction(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], dim=-1))


@dataclass
class Batch:
    observations: torch.Tensor
    actions: torch.Tensor
    rewards: torch.Tensor
    terminals: torch.Tensor
    next_observations: torch.Tensor


class CQLTrainer:
    def __init__(self, policy, qf1, qf2, target_qf1, target_qf2, discount=0.99, min_q_weight=5.0, num_random=4):
        self.policy, self.qf1, self.qf2 = policy, qf1, qf2
        self.target_qf1, self.target_qf2 = target_qf1, target_qf2
        self.discount = discount
        self.min_q_weight = min_q_weight
        self.num_random = num_random
        self.alpha = 0.2
        self.policy_optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
        self.qf1_optimizer = torch.optim.Adam(qf1.parameters(), lr=3e-4)
        self.qf2_optimizer = torch.optim.Adam(qf2.parameters(), lr=3e-4)

    def _get_policy_actions(self, obs):
        obs_rep = obs.unsqueeze(1).repeat(1, self.num_random, 1).view(-1, obs.shape[-1])
        actions, log_pi = self.policy(obs_rep)
        return obs_rep, actions, log_pi

    def _cql_penalty(self, qf, obs, actions):
        obs_rep, curr_actions, curr_log_pi = self._get_policy_actions(obs)
        q_curr = qf(obs_rep, curr_actions).view(obs.shape[0], self.num_random)
        cat_q = q_curr - curr_log_pi.view(obs.shape[0], self.num_random)
        return (torch.logsumexp(cat_q, dim=1).mean() - qf(obs, actions).mean()) * self.min_q_weight

    def train_from_torch(self, batch):
        obs, actions = batch.observations, batch.actions
        # Policy loss (built first, as in the original trainer)
        new_obs_actions, log_pi = self.policy(obs)
        q_new_actions = torch.min(self.qf1(obs, new_obs_actions), self.qf2(obs, new_obs_actions))
        policy_loss = (self.alpha * log_pi - q_new_actions).mean()

        # QF loss
        q1_pred = self.qf1(obs, actions)
        q2_pred = self.qf2(obs, actions)
        with torch.no_grad():
            new_next_actions, new_log_pi = self.policy(batch.next_observations)
            target_q = torch.min(
                self.target_qf1(batch.next_observations, new_next_actions),
                self.target_qf2(batch.next_observations, new_next_actions),
            ) - self.alpha * new_log_pi
            q_target = batch.rewards + (1.0 - batch.terminals) * self.discount * target_q
        qf1_loss = F.mse_loss(q1_pred, q_target) + self._cql_penalty(self.qf1, obs, actions)
        qf2_loss = F.mse_loss(q2_pred, q_target) + self._cql_penalty(self.qf2, obs, actions)

        self.qf1_optimizer.zero_grad()
        qf1_loss.backward(retain_graph=True)
        self.qf1_optimizer.step()  # expect: GG111
        self.qf2_optimizer.zero_grad()
        qf2_loss.backward(retain_graph=True)
        self.qf2_optimizer.step()  # also: GG111
        self.policy_optimizer.zero_grad()
        policy_loss.backward()  # also: GG111
        self.policy_optimizer.step()
        return {"qf1_loss": qf1_loss.item(), "qf2_loss": qf2_loss.item(), "policy_loss": policy_loss.item()}


def sample_batch(n, obs_dim, act_dim):
    return Batch(
        observations=torch.randn(n, obs_dim),
        actions=torch.rand(n, act_dim) * 2 - 1,
        rewards=torch.randn(n, 1),
        terminals=torch.zeros(n, 1),
        next_observations=torch.randn(n, obs_dim),
    )


def main():
    torch.manual_seed(0)
    obs_dim, act_dim = 6, 2
    qf1, qf2 = QFunction(obs_dim, act_dim), QFunction(obs_dim, act_dim)
    target_qf1, target_qf2 = QFunction(obs_dim, act_dim), QFunction(obs_dim, act_dim)
    target_qf1.load_state_dict(qf1.state_dict())
    target_qf2.load_state_dict(qf2.state_dict())
    trainer = CQLTrainer(TanhGaussianPolicy(obs_dim, act_dim), qf1, qf2, target_qf1, target_qf2)
    for it in range(3):
        print(it, trainer.train_from_torch(sample_batch(16, obs_dim, act_dim)))


if __name__ == "__main__":
    main()
