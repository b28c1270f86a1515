# corpus: SAC update_parameters steps the twin-Q critic first and only then samples the policy and builds the policy loss through the freshly updated critic, with the temperature loss on detached log-probs; every backward has its own fresh graph, so it is correct.
# source: https://github.com/pytorch/pytorch/issues/38480
import random
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal
from torch.optim import Adam

LOG_SIG_MAX, LOG_SIG_MIN, epsilon = 2, -20, 1e-6


def soft_update(target, source, tau):
    with torch.no_grad():
        for t, s in zip(target.parameters(), source.parameters()):
            t.mul_(1.0 - tau).add_(s, alpha=tau)


def hard_update(target, source):
    target.load_state_dict(source.state_dict())


class QNetwork(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs + num_actions, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, hidden_dim)
        self.linear3 = nn.Linear(hidden_dim, 1)
        self.linear4 = nn.Linear(num_inputs + num_actions, hidden_dim)
        self.linear5 = nn.Linear(hidden_dim, hidden_dim)
        self.linear6 = nn.Linear(hidden_dim, 1)

    def forward(self, state, action):
        xu = torch.cat([state, action], 1)
        x1 = F.relu(self.linear2(F.relu(self.linear1(xu))))
        x2 = F.relu(self.linear5(F.relu(self.linear4(xu))))
        return self.linear3(x1), self.linear6(x2)


class GaussianPolicy(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, hidden_dim)
        self.mean_linear = nn.Linear(hidden_dim, num_actions)
        self.log_std_linear = nn.Linear(hidden_dim, num_actions)

    def forward(self, state):
        x = F.relu(self.linear2(F.relu(self.linear1(state))))
        mean = self.mean_linear(x)
        log_std = torch.clamp(self.log_std_linear(x), min=LOG_SIG_MIN, max=LOG_SIG_MAX)
        return mean, log_std

    def sample(self, state):
        mean, log_std = self.forward(state)
        std = log_std.exp()
        normal = Normal(mean, std)
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        log_prob = normal.log_prob(x_t) - torch.log(1 - y_t.pow(2) + epsilon)
        return y_t, log_prob.sum(1, keepdim=True), torch.tanh(mean)


class ReplayMemory:
    def __init__(self, capacity, seed):
        random.seed(seed)
        self.buffer = deque(maxlen=capacity)

    def push(self, *transition):
        self.buffer.append(transition)

    def sample(self, batch_size):
        batch = random.sample(self.buffer, batch_size)
        return map(np.stack, zip(*batch))

    def __len__(self):
        return len(self.buffer)


class SAC:
    def __init__(self, num_inputs, num_actions, gamma=0.99, tau=0.005, lr=3e-4, hidden=32):
        self.gamma, self.tau = gamma, tau
        self.critic = QNetwork(num_inputs, num_actions, hidden)
        self.critic_optim = Adam(self.critic.parameters(), lr=lr)
        self.critic_target = QNetwork(num_inputs, num_actions, hidden)
        hard_update(self.critic_target, self.critic)
        self.target_entropy = -float(num_actions)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha = self.log_alpha.exp().item()
        self.alpha_optim = Adam([self.log_alpha], lr=lr)
        self.policy = GaussianPolicy(num_inputs, num_actions, hidden)
        self.policy_optim = Adam(self.policy.parameters(), lr=lr)

    def select_action(self, state):
        state = torch.FloatTensor(state).unsqueeze(0)
        with torch.no_grad():
            action, _, _ = self.policy.sample(state)
        return action.numpy()[0]

    def update_parameters(self, memory, batch_size, updates):
        state_batch, action_batch, reward_batch, next_state_batch, mask_batch = memory.sample(batch_size)
        state_batch = torch.FloatTensor(state_batch)
        next_state_batch = torch.FloatTensor(next_state_batch)
        action_batch = torch.FloatTensor(action_batch)
        reward_batch = torch.FloatTensor(reward_batch).unsqueeze(1)
        mask_batch = torch.FloatTensor(mask_batch).unsqueeze(1)

        with torch.no_grad():
            next_state_action, next_state_log_pi, _ = self.policy.sample(next_state_batch)
            qf1_next_target, qf2_next_target = self.critic_target(next_state_batch, next_state_action)
            min_qf_next_target = torch.min(qf1_next_target, qf2_next_target) - self.alpha * next_state_log_pi
            next_q_value = reward_batch + mask_batch * self.gamma * min_qf_next_target
        qf1, qf2 = self.critic(state_batch, action_batch)
        qf1_loss = F.mse_loss(qf1, next_q_value)
        qf2_loss = F.mse_loss(qf2, next_q_value)
        qf_loss = qf1_loss + qf2_loss

        self.critic_optim.zero_grad()
        qf_loss.backward()
        self.critic_optim.step()

        # policy loss built after the critic step, through the updated critic
        pi, log_pi, _ = self.policy.sample(state_batch)
        qf1_pi, qf2_pi = self.critic(state_batch, pi)
        min_qf_pi = torch.min(qf1_pi, qf2_pi)
        policy_loss = ((self.alpha * log_pi) - min_qf_pi).mean()

        self.policy_optim.zero_grad()
        policy_loss.backward()
        self.policy_optim.step()

        alpha_loss = -(self.log_alpha * (log_pi + self.target_entropy).detach()).mean()
        self.alpha_optim.zero_grad()
        alpha_loss.backward()
        self.alpha_optim.step()
        self.alpha = self.log_alpha.exp().item()

        soft_update(self.critic_target, self.critic, self.tau)
        return qf1_loss.item(), qf2_loss.item(), policy_loss.item(), alpha_loss.item()


def sac_train(agent, memory, max_steps, batch_size=16, start_steps=20, obs_dim=3, act_dim=1):
    updates = 0
    state = np.random.randn(obs_dim).astype(np.float32)
    for total_numsteps in range(max_steps):
        if start_steps > total_numsteps:
            action = np.random.uniform(-1, 1, act_dim).astype(np.float32)
        else:
            action = agent.select_action(state)
        if len(memory) > batch_size:
            losses = agent.update_parameters(memory, batch_size, updates)
            updates += 1
        next_state = np.random.randn(obs_dim).astype(np.float32)
        reward = -float(np.square(action).sum())
        done = (total_numsteps + 1) % 25 == 0
        memory.push(state, action, reward, next_state, float(not done))
        state = next_state
    return losses


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    agent = SAC(num_inputs=3, num_actions=1)
    memory = ReplayMemory(1000, seed=0)
    losses = sac_train(agent, memory, max_steps=40)
    print("losses", ["%.3f" % v for v in losses])


if __name__ == "__main__":
    main()
