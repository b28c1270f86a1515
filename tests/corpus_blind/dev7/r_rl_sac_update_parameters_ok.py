# corpus: SAC update_parameters in the pranz24 layout: critic loss, critic step, then the policy loss is computed afresh from the stepped critic before its backward (correct)
# source: https://github.com/pranz24/pytorch-soft-actor-critic/issues/31
import copy
from collections import deque
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class QNetwork(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden_dim=32):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs + num_actions, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, 1)
        self.linear3 = nn.Linear(num_inputs + num_actions, hidden_dim)
        self.linear4 = nn.Linear(hidden_dim, 1)

    def forward(self, state, action):
        xu = torch.cat([state, action], 1)
        x1 = self.linear2(F.relu(self.linear1(xu)))
        x2 = self.linear4(F.relu(self.linear3(xu)))
        return x1, x2


class GaussianPolicy(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden_dim=32):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs, hidden_dim)
        self.mean_linear = nn.Linear(hidden_dim, num_actions)
        self.log_std_linear = nn.Linear(hidden_dim, num_actions)

    def sample(self, state):
        x = F.relu(self.linear1(state))
        mean = self.mean_linear(x)
        log_std = torch.clamp(self.log_std_linear(x), min=-20, max=2)
        normal = torch.distributions.Normal(mean, log_std.exp())
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        log_prob = normal.log_prob(x_t) - torch.log(1 - y_t.pow(2) + 1e-6)
        return y_t, log_prob.sum(1, keepdim=True), torch.tanh(mean)


class ReplayMemory:
    def __init__(self, capacity):
        self.buffer = deque(maxlen=capacity)

    def push(self, state, action, reward, next_state, done):
        self.buffer.append((state, action, reward, next_state, done))

    def sample(self, batch_size):
        batch = random.sample(self.buffer, batch_size)
        state, action, reward, next_state, done = map(torch.stack, zip(*batch))
        return state, action, reward, next_state, done

    def __len__(self):
        return len(self.buffer)


class SAC:
    def __init__(self, num_inputs, num_actions, gamma=0.99, tau=0.005, alpha=0.2, lr=3e-4):
        self.gamma, self.tau, self.alpha = gamma, tau, alpha
        self.critic = QNetwork(num_inputs, num_actions)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=lr)
        self.critic_target = copy.deepcopy(self.critic)
        self.policy = GaussianPolicy(num_inputs, num_actions)
        self.policy_optim = torch.optim.Adam(self.policy.parameters(), lr=lr)

    def update_parameters(self, memory, batch_size):
        state_batch, action_batch, reward_batch, next_state_batch, mask_batch = memory.sample(batch_size)
        with torch.no_grad():
            next_state_action, next_state_log_pi, _ = self.policy.sample(next_state_batch)
            qf1_next_target, qf2_next_target = self.critic_target(next_state_batch, next_state_action)
            min_qf_next_target = torch.min(qf1_next_target, qf2_next_target) - self.alpha * next_state_log_pi
            next_q_value = reward_batch + mask_batch * self.gamma * min_qf_next_target
        qf1, qf2 = self.critic(state_batch, action_batch)
        qf_loss = F.mse_loss(qf1, next_q_value) + F.mse_loss(qf2, next_q_value)

        self.critic_optim.zero_grad()
        qf_loss.backward()
        self.critic_optim.step()

        pi, log_pi, _ = self.policy.sample(state_batch)
        qf1_pi, qf2_pi = self.critic(state_batch, pi)
        min_qf_pi = torch.min(qf1_pi, qf2_pi)
        policy_loss = ((self.alpha * log_pi) - min_qf_pi).mean()

        self.policy_optim.zero_grad()
        policy_loss.backward()
        self.policy_optim.step()

        with torch.no_grad():
            for target_param, param in zip(self.critic_target.parameters(), self.critic.parameters()):
                target_param.mul_(1.0 - self.tau).add_(param, alpha=self.tau)
        return qf_loss.item(), policy_loss.item()


def main():
    torch.manual_seed(0)
    random.seed(0)
    memory = ReplayMemory(1000)
    for _ in range(64):
        memory.push(torch.randn(5), torch.rand(2) * 2 - 1, torch.randn(1), torch.randn(5), torch.ones(1))
    agent = SAC(5, 2)
    before = agent.policy.mean_linear.weight.detach().clone()
    for updates in range(4):
        critic_loss, policy_loss = agent.update_parameters(memory, batch_size=16)
    assert not torch.equal(before, agent.policy.mean_linear.weight)
    print(f"critic {critic_loss:.3f} policy {policy_loss:.3f}")


if __name__ == "__main__":
    main()
