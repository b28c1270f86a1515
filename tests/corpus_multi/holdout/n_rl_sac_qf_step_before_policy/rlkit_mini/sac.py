import copy

import torch
import torch.nn as nn


class SACTrainer:
    def __init__(self, policy, qf1, qf2, discount=0.99, soft_target_tau=5e-3,
                 policy_lr=3e-4, qf_lr=3e-4, target_entropy=-1.0):
        self.policy = policy
        self.qf1, self.qf2 = qf1, qf2
        self.target_qf1, self.target_qf2 = copy.deepcopy(qf1), copy.deepcopy(qf2)
        self.discount = discount
        self.soft_target_tau = soft_target_tau
        self.target_entropy = target_entropy
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.qf_criterion = nn.MSELoss()
        self.policy_optimizer = torch.optim.Adam(policy.parameters(), lr=policy_lr)
        self.qf1_optimizer = torch.optim.Adam(qf1.parameters(), lr=qf_lr)
        self.qf2_optimizer = torch.optim.Adam(qf2.parameters(), lr=qf_lr)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=policy_lr)
        self.eval_statistics = {}

    def train_from_torch(self, batch):
        obs = batch["observations"]
        actions = batch["actions"]
        rewards = batch["rewards"]
        next_obs = batch["next_observations"]
        terminals = batch["terminals"]

        # Policy and alpha loss
        new_obs_actions, _, _, log_pi = self.policy(obs)
        alpha_loss = -(self.log_alpha * (log_pi + self.target_entropy).detach()).mean()
        alpha = self.log_alpha.exp().detach()
        q_new_actions = torch.min(self.qf1(obs, new_obs_actions), self.qf2(obs, new_obs_actions))
        policy_loss = (alpha * log_pi - q_new_actions).mean()  # expect: GG111

        # QF loss
        q1_pred = self.qf1(obs, actions)
        q2_pred = self.qf2(obs, actions)
        with torch.no_grad():
            new_next_actions, _, _, new_log_pi = self.policy(next_obs)
            target_q_values = torch.min(
                self.target_qf1(next_obs, new_next_actions),
                self.target_qf2(next_obs, new_next_actions),
            ) - alpha * new_log_pi
            q_target = rewards + (1.0 - terminals) * self.discount * target_q_values
        qf1_loss = self.qf_criterion(q1_pred, q_target)
        qf2_loss = self.qf_criterion(q2_pred, q_target)

        # Update networks: critics first, then the policy
        self.alpha_optimizer.zero_grad()
        alpha_loss.backward()
        self.alpha_optimizer.step()

        self.qf1_optimizer.zero_grad()
        qf1_loss.backward()
        self.qf1_optimizer.step()  # also: GG111

        self.qf2_optimizer.zero_grad()
        qf2_loss.backward()
        self.qf2_optimizer.step()  # also: GG111

        self.policy_optimizer.zero_grad()
        policy_loss.backward()  # also: GG111
        self.policy_optimizer.step()

        self._soft_update()
        self.eval_statistics = {
            "QF1 Loss": qf1_loss.item(),
            "QF2 Loss": qf2_loss.item(),
            "Policy Loss": policy_loss.item(),
        }

    @torch.no_grad()
    def _soft_update(self):
        for src, tgt in ((self.qf1, self.target_qf1), (self.qf2, self.target_qf2)):
            for p, tp in zip(src.parameters(), tgt.parameters()):
                tp.mul_(1.0 - self.soft_target_tau).add_(self.soft_target_tau * p)
