# corpus: Gaussian actor-critic agent's learn() on a batch of envs backprops (actor_loss + critic_loss) while both are still per-env tensors
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://discuss.pytorch.org/t/actor-critic-with-multivariate-normal-network-weights-fail-to-update/74548
import math

import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Normal


class GenericNetwork(nn.Module):
    def __init__(self, lr, input_dims, fc1_dims, n_outputs):
        super().__init__()
        self.fc1 = nn.Linear(input_dims, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, n_outputs)
        self.optimizer = optim.Adam(self.parameters(), lr=lr)

    def forward(self, observation):
        return self.fc2(torch.relu(self.fc1(observation)))


class Agent:
    def __init__(self, alpha, beta, input_dims, gamma=0.99, n_envs=4):
        self.gamma = gamma
        self.n_envs = n_envs
        self.log_probs = None
        self.actor = GenericNetwork(alpha, input_dims, 32, n_outputs=2)
        self.critic = GenericNetwork(beta, input_dims, 32, n_outputs=1)
        self.scale = torch.tensor([2 * math.pi, math.pi / 2])
        self.std = torch.tensor([0.3, 0.1])

    def choose_action(self, observation):
        policy_thetas = torch.sigmoid(self.actor(observation))
        mu = policy_thetas * self.scale
        action_probs = Normal(mu, self.std)
        action = action_probs.sample()
        self.log_probs = action_probs.log_prob(action).sum(-1, keepdim=True)
        return action

    def learn(self, state, reward, new_state, done):
        self.actor.optimizer.zero_grad()
        self.critic.optimizer.zero_grad()
        critic_value = self.critic(state)
        critic_value_ = self.critic(new_state)
        delta = (reward + self.gamma * critic_value_ * (1 - done)) - critic_value
        actor_loss = -self.log_probs * delta.detach()
        critic_loss = delta ** 2
        (actor_loss + critic_loss).backward()  # expect: GG109
        self.actor.optimizer.step()
        self.critic.optimizer.step()


def main():
    torch.manual_seed(0)
    n_envs = 4
    agent = Agent(alpha=1e-4, beta=1e-3, input_dims=3, n_envs=n_envs)
    observation = torch.randn(n_envs, 3)
    for step in range(3):
        action = agent.choose_action(observation)
        observation_ = torch.randn(n_envs, 3)
        reward = -(action - 1.0).pow(2).sum(-1, keepdim=True)
        done = torch.zeros(n_envs, 1)
        agent.learn(observation, reward, observation_, done)
        observation = observation_


if __name__ == "__main__":
    main()
