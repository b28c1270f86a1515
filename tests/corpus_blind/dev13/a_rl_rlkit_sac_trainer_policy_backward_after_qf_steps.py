# corpus: rlkit-style SACTrainer.train_from_torch: the policy loss is built from qf1/qf2 evaluated at the reparameterized new actions, then qf1 and qf2 are each backpropagated and stepped, and only then is the policy loss backpropagated through Q weights those steps already updated
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/rail-berkeley/rlkit/pull/109
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn


class ConcatMlp(nn.Module):
    def __init__(self, input_size, output_size, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(input_size, hidden), nn.ReLU(), nn.Linear(hidden, output_size))

    def forward(self, *inputs):
        return self.net(torch.cat(inputs, dim=1))


class TanhGaussianPolicy(nn.Module):
    def __init__(self, obs_dim, action_dim, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU())
        self.mean = nn.Linear(hidden, action_dim)
        self.log_std = nn.Linear(hidden, action_dim)

    def forward(self, obs, reparameterize=True, return_log_prob=True):
        h = self.trunk(obs)
        mean, log_std = self.mean(h), self.log_std(h).clamp(-20, 2)
        normal = torch.distributions.Normal(mean, log_std.exp())
        pre_tanh = normal.rsample() if reparameterize else normal.sample()
        action = torch.tanh(pre_tanh)
        log_prob = (normal.log_prob(pre_tanh) - torch.log(1 - action.pow(2) + 1e-6)).sum(1, keepdim=True)
        return action, mean, log_std, log_prob


def soft_update_from_to(source, target, tau):
    with torch.no_grad():
        for tp, p in zip(target.parameters(), source.parameters()):
            tp.copy_(tp * (1.0 - tau) + p * tau)


class SACTrainer:
    def __init__(self, policy, qf1, qf2, target_qf1, target_qf2, action_dim, discount=0.99, reward_scale=1.0,
                 policy_lr=3e-4, qf_lr=3e-4, soft_target_tau=5e-3):
        self.policy, self.qf1, self.qf2 = policy, qf1, qf2
        self.target_qf1, self.target_qf2 = target_qf1, target_qf2
        self.target_entropy = -float(action_dim)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=policy_lr)
        self.qf_criterion = nn.MSELoss()
        self.policy_optimizer = torch.optim.Adam(self.policy.parameters(), lr=policy_lr)
        self.qf1_optimizer = torch.optim.Adam(self.qf1.parameters(), lr=qf_lr)
        self.qf2_optimizer = torch.optim.Adam(self.qf2.parameters(), lr=qf_lr)
        self.discount, self.reward_scale, self.soft_target_tau = discount, reward_scale, soft_target_tau
        self.eval_statistics = OrderedDict()

    def train_from_torch(self, batch):
        rewards, terminals = batch["rewards"], batch["terminals"]
        obs, actions, next_obs = batch["observations"], batch["actions"], batch["next_observations"]

        new_obs_actions, policy_mean, policy_log_std, log_pi = self.policy(obs, reparameterize=True)
        alpha_loss = -(self.log_alpha * (log_pi + self.target_entropy).detach()).mean()
        self.alpha_optimizer.zero_grad()
        alpha_loss.backward()
        self.alpha_optimizer.step()
        alpha = self.log_alpha.exp()
        q_new_actions = torch.min(self.qf1(obs, new_obs_actions), self.qf2(obs, new_obs_actions))
        policy_loss = (alpha * log_pi - q_new_actions).mean()  # also: GG111

        q1_pred, q2_pred = self.qf1(obs, actions), self.qf2(obs, actions)
        new_next_actions, _, _, new_log_pi = self.policy(next_obs, reparameterize=True)
        target_q_values = torch.min(self.target_qf1(next_obs, new_next_actions),
                                    self.target_qf2(next_obs, new_next_actions)) - alpha * new_log_pi
        q_target = self.reward_scale * rewards + (1.0 - terminals) * self.discount * target_q_values
        qf1_loss = self.qf_criterion(q1_pred, q_target.detach())
        qf2_loss = self.qf_criterion(q2_pred, q_target.detach())

        self.qf1_optimizer.zero_grad()
        qf1_loss.backward()
        self.qf1_optimizer.step()  # expect: GG111

        self.qf2_optimizer.zero_grad()
        qf2_loss.backward()
        self.qf2_optimizer.step()  # also: GG111

        self.policy_optimizer.zero_grad()
        policy_loss.backward()  # also: GG111
        self.policy_optimizer.step()

        soft_update_from_to(self.qf1, self.target_qf1, self.soft_target_tau)
        soft_update_from_to(self.qf2, self.target_qf2, self.soft_target_tau)
        self.eval_statistics["QF1 Loss"] = qf1_loss.item()
        self.eval_statistics["Policy Loss"] = policy_loss.item()


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    obs_dim, action_dim, n = 6, 2, 32
    qf1, qf2 = ConcatMlp(obs_dim + action_dim, 1), ConcatMlp(obs_dim + action_dim, 1)
    target_qf1, target_qf2 = ConcatMlp(obs_dim + action_dim, 1), ConcatMlp(obs_dim + action_dim, 1)
    target_qf1.load_state_dict(qf1.state_dict())
    target_qf2.load_state_dict(qf2.state_dict())
    trainer = SACTrainer(TanhGaussianPolicy(obs_dim, action_dim), qf1, qf2, target_qf1, target_qf2, action_dim)
    for step in range(3):
        obs = torch.randn(n, obs_dim)
        batch = {"observations": obs, "actions": torch.rand(n, action_dim) * 2 - 1, "rewards": torch.randn(n, 1),
                 "terminals": torch.zeros(n, 1), "next_observations": obs + 0.05 * torch.randn(n, obs_dim)}
        trainer.train_from_torch(batch)
        print(step, dict(trainer.eval_statistics))


if __name__ == "__main__":
    main()
