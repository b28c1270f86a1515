import copy

import torch

from .model import GaussianPolicy, TwinnedQNetwork
from .utils import soft_update, update_params


class SacAgent:
    def __init__(self, state_dim, action_dim, lr=3e-4, gamma=0.99, tau=5e-3, grad_clip=None):
        self.policy = GaussianPolicy(state_dim, action_dim)
        self.critic = TwinnedQNetwork(state_dim, action_dim)
        self.critic_target = copy.deepcopy(self.critic).requires_grad_(False)
        self.policy_optim = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.q1_optim = torch.optim.Adam(self.critic.Q1.parameters(), lr=lr)
        self.q2_optim = torch.optim.Adam(self.critic.Q2.parameters(), lr=lr)
        self.target_entropy = -float(action_dim)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha = self.log_alpha.exp().detach()
        self.alpha_optim = torch.optim.Adam([self.log_alpha], lr=lr)
        self.gamma, self.tau, self.grad_clip = gamma, tau, grad_clip

    def explore(self, state):
        with torch.no_grad():
            action, _, _ = self.policy.sample(torch.as_tensor(state).unsqueeze(0))
        return action.squeeze(0).numpy()

    def calc_critic_loss(self, batch):
        states, actions, rewards, next_states, dones = batch
        curr_q1, curr_q2 = self.critic(states, actions)
        with torch.no_grad():
            next_actions, next_entropies, _ = self.policy.sample(next_states)
            next_q1, next_q2 = self.critic_target(next_states, next_actions)
            next_q = torch.min(next_q1, next_q2) + self.alpha * next_entropies
            target_q = rewards + (1.0 - dones) * self.gamma * next_q
        q1_loss = torch.mean((curr_q1 - target_q).pow(2))
        q2_loss = torch.mean((curr_q2 - target_q).pow(2))
        return q1_loss, q2_loss

    def calc_policy_loss(self, batch):
        states = batch[0]
        sampled_actions, entropies, _ = self.policy.sample(states)
        q1, q2 = self.critic(states, sampled_actions)
        policy_loss = torch.mean(-torch.min(q1, q2) - self.alpha * entropies)
        return policy_loss, entropies

    def calc_entropy_loss(self, entropies):
        return -torch.mean(self.log_alpha * (self.target_entropy - entropies).detach())

    def learn(self, batch):
        q1_loss, q2_loss = self.calc_critic_loss(batch)
        update_params(self.q1_optim, self.critic.Q1, q1_loss, self.grad_clip)
        update_params(self.q2_optim, self.critic.Q2, q2_loss, self.grad_clip)

        # policy loss is computed after the critics were stepped, from a fresh forward pass
        policy_loss, entropies = self.calc_policy_loss(batch)
        update_params(self.policy_optim, self.policy, policy_loss, self.grad_clip)

        entropy_loss = self.calc_entropy_loss(entropies)
        update_params(self.alpha_optim, None, entropy_loss)
        self.alpha = self.log_alpha.exp().detach()

        soft_update(self.critic_target, self.critic, self.tau)
        return {"q1": q1_loss.item(), "q2": q2_loss.item(), "policy": policy_loss.item()}
