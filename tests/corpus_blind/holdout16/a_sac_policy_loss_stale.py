# corpus: SAC agent (toshikwa-style learn()) computes the policy loss through Q1/Q2 before the two critic updates step their weights, so the later policy backward finds Q1's saved weight at a newer version and raises.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/toshikwa/soft-actor-critic.pytorch/issues/1
import random

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Normal


def update_params(optim, network, loss, grad_clip=None, retain_graph=False):
    optim.zero_grad()
    loss.backward(retain_graph=retain_graph)  # also: GG111
    if grad_clip is not None:
        torch.nn.utils.clip_grad_norm_(network.parameters(), grad_clip)
    optim.step()


class QNetwork(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(num_inputs + num_actions, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


class TwinnedQNetwork(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden=16):
        super().__init__()
        self.Q1 = QNetwork(num_inputs, num_actions, hidden)
        self.Q2 = QNetwork(num_inputs, num_actions, hidden)

    def forward(self, states, actions):
        x = torch.cat([states, actions], dim=1)
        return self.Q1(x), self.Q2(x)


class GaussianPolicy(nn.Module):
    LOG_SIG_MAX = 2
    LOG_SIG_MIN = -20
    eps = 1e-6

    def __init__(self, num_inputs, num_actions, hidden=16):
        super().__init__()
        self.policy = nn.Sequential(
            nn.Linear(num_inputs, hidden), nn.ReLU(),
            nn.Linear(hidden, 2 * num_actions))

    def forward(self, states):
        mean, log_std = torch.chunk(self.policy(states), 2, dim=-1)
        log_std = torch.clamp(log_std, min=self.LOG_SIG_MIN, max=self.LOG_SIG_MAX)
        return mean, log_std

    def sample(self, states):
        means, log_stds = self.forward(states)
        normals = Normal(means, log_stds.exp())
        xs = normals.rsample()
        actions = torch.tanh(xs)
        log_probs = normals.log_prob(xs) - torch.log(1 - actions.pow(2) + self.eps)
        entropies = -log_probs.sum(dim=1, keepdim=True)
        return actions, entropies, torch.tanh(means)


class ReplayMemory:
    def __init__(self, capacity, state_dim, action_dim):
        self.capacity = capacity
        self.states = np.zeros((capacity, state_dim), dtype=np.float32)
        self.actions = np.zeros((capacity, action_dim), dtype=np.float32)
        self.rewards = np.zeros((capacity, 1), dtype=np.float32)
        self.next_states = np.zeros((capacity, state_dim), dtype=np.float32)
        self.dones = np.zeros((capacity, 1), dtype=np.float32)
        self._n = 0

    def append(self, state, action, reward, next_state, done):
        i = self._n % self.capacity
        self.states[i], self.actions[i], self.rewards[i] = state, action, reward
        self.next_states[i], self.dones[i] = next_state, done
        self._n += 1

    def __len__(self):
        return min(self._n, self.capacity)

    def sample(self, batch_size):
        idx = np.random.randint(0, len(self), size=batch_size)
        return (torch.as_tensor(self.states[idx]), torch.as_tensor(self.actions[idx]),
                torch.as_tensor(self.rewards[idx]), torch.as_tensor(self.next_states[idx]),
                torch.as_tensor(self.dones[idx]))


class PointEnv:
    """1-D point that should move towards the origin."""

    def __init__(self):
        self.pos = None

    def reset(self):
        self.pos = np.random.uniform(-1, 1, size=(3,)).astype(np.float32)
        return self.pos.copy()

    def step(self, action):
        self.pos = np.clip(self.pos + 0.1 * action[0], -2, 2).astype(np.float32)
        reward = -float(np.abs(self.pos).sum())
        return self.pos.copy(), reward, False


class SacAgent:
    def __init__(self, env, state_dim=3, action_dim=1, batch_size=8, gamma=0.99,
                 tau=0.005, lr=3e-4, start_steps=16):
        self.env = env
        self.policy = GaussianPolicy(state_dim, action_dim)
        self.critic = TwinnedQNetwork(state_dim, action_dim)
        self.critic_target = TwinnedQNetwork(state_dim, action_dim)
        self.critic_target.load_state_dict(self.critic.state_dict())
        for p in self.critic_target.parameters():
            p.requires_grad = False
        self.policy_optim = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.q1_optim = torch.optim.Adam(self.critic.Q1.parameters(), lr=lr)
        self.q2_optim = torch.optim.Adam(self.critic.Q2.parameters(), lr=lr)
        self.target_entropy = -float(action_dim)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha = self.log_alpha.exp().detach()
        self.alpha_optim = torch.optim.Adam([self.log_alpha], lr=lr)
        self.memory = ReplayMemory(256, state_dim, action_dim)
        self.batch_size, self.gamma, self.tau = batch_size, gamma, tau
        self.start_steps = start_steps
        self.steps = 0

    def explore(self, state):
        with torch.no_grad():
            action, _, _ = self.policy.sample(torch.as_tensor(state).unsqueeze(0))
        return action.numpy()[0]

    def calc_current_q(self, states, actions):
        return self.critic(states, actions)

    def calc_target_q(self, rewards, next_states, dones):
        with torch.no_grad():
            next_actions, next_entropies, _ = self.policy.sample(next_states)
            next_q1, next_q2 = self.critic_target(next_states, next_actions)
            next_q = torch.min(next_q1, next_q2) + self.alpha * next_entropies
        return rewards + (1.0 - dones) * self.gamma * next_q

    def calc_critic_loss(self, batch, weights):
        states, actions, rewards, next_states, dones = batch
        curr_q1, curr_q2 = self.calc_current_q(states, actions)
        target_q = self.calc_target_q(rewards, next_states, dones)
        q1_loss = torch.mean((curr_q1 - target_q).pow(2) * weights)
        q2_loss = torch.mean((curr_q2 - target_q).pow(2) * weights)
        return q1_loss, q2_loss, curr_q1.detach().mean().item(), curr_q2.detach().mean().item()

    def calc_policy_loss(self, batch, weights):
        states = batch[0]
        sampled_action, entropy, _ = self.policy.sample(states)
        q1, q2 = self.critic(states, sampled_action)
        q = torch.min(q1, q2)
        policy_loss = torch.mean((-q - self.alpha * entropy) * weights)
        return policy_loss, entropy

    def calc_entropy_loss(self, entropy, weights):
        return -torch.mean(self.log_alpha * (self.target_entropy - entropy).detach() * weights)

    def soft_update(self):
        with torch.no_grad():
            for t, s in zip(self.critic_target.parameters(), self.critic.parameters()):
                t.mul_(1 - self.tau).add_(self.tau * s)

    def learn(self):
        batch = self.memory.sample(self.batch_size)
        weights = 1.0
        q1_loss, q2_loss, mean_q1, mean_q2 = self.calc_critic_loss(batch, weights)
        policy_loss, entropies = self.calc_policy_loss(batch, weights)  # expect: GG111

        update_params(self.q1_optim, self.critic.Q1, q1_loss)
        update_params(self.q2_optim, self.critic.Q2, q2_loss)
        update_params(self.policy_optim, self.policy, policy_loss)  # also: GG111

        entropy_loss = self.calc_entropy_loss(entropies, weights)
        update_params(self.alpha_optim, None, entropy_loss)
        self.alpha = self.log_alpha.exp().detach()
        self.soft_update()
        return {"q1": mean_q1, "q2": mean_q2, "policy_loss": policy_loss.item()}

    def train_episode(self, max_steps=40):
        state = self.env.reset()
        for _ in range(max_steps):
            if self.steps < self.start_steps:
                action = np.random.uniform(-1, 1, size=(1,)).astype(np.float32)
            else:
                action = self.explore(state)
            next_state, reward, done = self.env.step(action)
            self.memory.append(state, action, reward, next_state, done)
            self.steps += 1
            state = next_state
            if len(self.memory) >= self.batch_size and self.steps >= self.start_steps:
                self.learn()


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    agent = SacAgent(PointEnv())
    for _ in range(2):
        agent.train_episode()


if __name__ == "__main__":
    main()
