# corpus: SAC-Discrete agent computes q1/q2, policy and entropy losses up front and then runs update_params for each optimizer in turn; the critic used in the policy loss is evaluated under no_grad (correct)
# source: https://github.com/toshikwa/sac-discrete.pytorch/issues/24
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def update_params(optim, loss, retain_graph=False):
    optim.zero_grad()
    loss.backward(retain_graph=retain_graph)
    optim.step()


class QNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))

    def forward(self, states):
        return self.head(states)


class TwinnedQNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.Q1, self.Q2 = QNetwork(obs_dim, n_actions), QNetwork(obs_dim, n_actions)

    def forward(self, states):
        return self.Q1(states), self.Q2(states)


class CateoricalPolicy(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, n_actions))

    def sample(self, states):
        action_probs = F.softmax(self.head(states), dim=1)
        actions = torch.distributions.Categorical(action_probs).sample().view(-1, 1)
        z = (action_probs == 0.0).float() * 1e-8
        return actions, action_probs, torch.log(action_probs + z)


class SacdAgent:
    def __init__(self, obs_dim=6, n_actions=3, gamma=0.99):
        self.policy = CateoricalPolicy(obs_dim, n_actions)
        self.online_critic, self.target_critic = TwinnedQNetwork(obs_dim, n_actions), TwinnedQNetwork(obs_dim, n_actions)
        self.target_critic.load_state_dict(self.online_critic.state_dict())
        self.policy_optim = torch.optim.Adam(self.policy.parameters(), lr=3e-4)
        self.q1_optim = torch.optim.Adam(self.online_critic.Q1.parameters(), lr=3e-4)
        self.q2_optim = torch.optim.Adam(self.online_critic.Q2.parameters(), lr=3e-4)
        self.target_entropy = -np.log(1.0 / n_actions) * 0.98
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha = self.log_alpha.detach().exp()
        self.alpha_optim = torch.optim.Adam([self.log_alpha], lr=3e-4)
        self.gamma_n = gamma

    def calc_current_q(self, states, actions, rewards, next_states, dones):
        curr_q1, curr_q2 = self.online_critic(states)
        return curr_q1.gather(1, actions.long()), curr_q2.gather(1, actions.long())

    def calc_target_q(self, states, actions, rewards, next_states, dones):
        with torch.no_grad():
            _, action_probs, log_action_probs = self.policy.sample(next_states)
            next_q1, next_q2 = self.target_critic(next_states)
            next_q = (action_probs * (torch.min(next_q1, next_q2) - self.alpha * log_action_probs)).sum(dim=1, keepdim=True)
        return rewards + (1.0 - dones) * self.gamma_n * next_q

    def calc_critic_loss(self, batch, weights):
        curr_q1, curr_q2 = self.calc_current_q(*batch)
        target_q = self.calc_target_q(*batch)
        q1_loss = torch.mean((curr_q1 - target_q).pow(2) * weights)
        q2_loss = torch.mean((curr_q2 - target_q).pow(2) * weights)
        return q1_loss, q2_loss

    def calc_policy_loss(self, batch, weights):
        states = batch[0]
        _, action_probs, log_action_probs = self.policy.sample(states)
        with torch.no_grad():
            q1, q2 = self.online_critic(states)
        entropies = -torch.sum(action_probs * log_action_probs, dim=1, keepdim=True)
        q = torch.sum(torch.min(q1, q2) * action_probs, dim=1, keepdim=True)
        policy_loss = (weights * (-q - self.alpha * entropies)).mean()
        return policy_loss, entropies.detach()

    def calc_entropy_loss(self, entropies, weights):
        return -torch.mean(self.log_alpha * (self.target_entropy - entropies) * weights)

    def learn(self, batch, weights=1.0):
        q1_loss, q2_loss = self.calc_critic_loss(batch, weights)
        policy_loss, entropies = self.calc_policy_loss(batch, weights)
        entropy_loss = self.calc_entropy_loss(entropies, weights)
        update_params(self.q1_optim, q1_loss)
        update_params(self.q2_optim, q2_loss)
        update_params(self.policy_optim, policy_loss)
        update_params(self.alpha_optim, entropy_loss)
        self.alpha = self.log_alpha.detach().exp()
        return q1_loss.item(), q2_loss.item(), policy_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = SacdAgent()
    for step in range(4):
        batch = (torch.randn(16, 6), torch.randint(0, 3, (16, 1)), torch.randn(16, 1),
                 torch.randn(16, 6), (torch.rand(16, 1) < 0.1).float())
        print(step, agent.learn(batch))
