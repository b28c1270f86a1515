# corpus: toyrl-style A2C agent computing GAE by writing advantages[t] in place into a clone of the TD-error tensor; each write only reads a freshly computed product of advantages[t + 1], nothing autograd saved is overwritten, so the single loss.backward() is valid; correct
# source: https://github.com/ai-glimpse/toyrl/pull/22
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class ActorCriticNet(nn.Module):
    def __init__(self, env_dim: int, action_num: int) -> None:
        super().__init__()
        self.shared_layers = nn.Sequential(nn.Linear(env_dim, 32), nn.ReLU())
        self.policy_head = nn.Linear(32, action_num)
        self.value_head = nn.Linear(32, 1)

    def forward(self, x):
        x = self.shared_layers(x)
        return self.policy_head(x), self.value_head(x)


@dataclass
class Experience:
    observation: Any
    action: Any
    reward: float
    next_observation: Any
    terminated: bool
    truncated: bool


@dataclass
class ReplayBuffer:
    buffer: list = field(default_factory=list)

    def __len__(self):
        return len(self.buffer)

    def add_experience(self, experience: Experience) -> None:
        self.buffer.append(experience)

    def reset(self) -> None:
        self.buffer = []

    def sample(self):
        return self.buffer

    def total_reward(self) -> float:
        return sum(e.reward for e in self.buffer)


class Agent:
    def __init__(self, net: nn.Module, optimizer: torch.optim.Optimizer) -> None:
        self._net = net
        self._optimizer = optimizer
        self._replay_buffer = ReplayBuffer()

    def onpolicy_reset(self):
        self._replay_buffer.reset()

    def add_experience(self, experience):
        self._replay_buffer.add_experience(experience)

    def act(self, observation: np.ndarray) -> int:
        x = torch.from_numpy(observation.astype(np.float32))
        with torch.no_grad():
            action_logits, _ = self._net(x)
        return torch.distributions.Categorical(logits=action_logits).sample().item()

    def net_update(self, gamma, lambda_, value_loss_coef, policy_loss_coef, entropy_coef):
        experiences = self._replay_buffer.sample()
        observations = torch.tensor(np.array([e.observation for e in experiences]))
        actions = torch.tensor([e.action for e in experiences])
        rewards = torch.tensor([e.reward for e in experiences]).unsqueeze(1)
        next_observations = torch.tensor(np.array([e.next_observation for e in experiences]))
        terminateds = torch.tensor([e.terminated for e in experiences], dtype=torch.float32).unsqueeze(1)

        policy_action_logits, v_values = self._net(observations)
        with torch.no_grad():
            _, v_values_next = self._net(next_observations)
        deltas = rewards + gamma * v_values_next * (1 - terminateds) - v_values
        advantages = deltas.clone()
        for t in reversed(range(len(experiences) - 1)):
            advantages[t] = deltas[t] + gamma * lambda_ * advantages[t + 1] * (1 - terminateds[t])
        v_targets = advantages + v_values
        value_loss = nn.functional.mse_loss(v_values, v_targets)

        action_dist = torch.distributions.Categorical(logits=policy_action_logits)
        action_entropy = action_dist.entropy().mean()
        action_log_probs = action_dist.log_prob(actions)
        policy_loss = torch.mean(-action_log_probs * advantages.squeeze(1))

        loss = value_loss * value_loss_coef + policy_loss * policy_loss_coef - entropy_coef * action_entropy
        self._optimizer.zero_grad()
        loss.backward()
        self._optimizer.step()
        return loss.item(), action_entropy.item(), advantages.mean().item()


@dataclass
class TrainConfig:
    gamma: float = 0.99
    lambda_: float = 0.95
    value_loss_coef: float = 0.5
    policy_loss_coef: float = 1.0
    entropy_coef: float = 0.001
    num_episodes: int = 4
    learning_rate: float = 7e-4


class ToyEnv:
    def reset(self):
        self.t = 0
        self.s = np.random.randn(4).astype(np.float32)
        return self.s, {}

    def step(self, a):
        self.t += 1
        self.s = (0.9 * self.s + 0.1 * (a - 0.5)).astype(np.float32)
        terminated = bool(abs(self.s[0]) > 2.0)
        return self.s, 1.0, terminated, self.t >= 12, {}


class A2CTrainer:
    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.env = ToyEnv()
        net = ActorCriticNet(env_dim=4, action_num=2)
        self.agent = Agent(net=net, optimizer=optim.Adam(net.parameters(), lr=config.learning_rate))

    def train(self):
        c = self.config
        for episode in range(c.num_episodes):
            observation, _ = self.env.reset()
            terminated = truncated = False
            while not (terminated or truncated):
                action = self.agent.act(observation)
                next_observation, reward, terminated, truncated, _ = self.env.step(action)
                self.agent.add_experience(Experience(observation, action, float(reward), next_observation,
                                                     terminated, truncated))
                observation = next_observation
            loss, entropy, adv_mean = self.agent.net_update(c.gamma, c.lambda_, c.value_loss_coef,
                                                            c.policy_loss_coef, c.entropy_coef)
            total_reward = self.agent._replay_buffer.total_reward()
            self.agent.onpolicy_reset()
            print(f"Episode {episode}, total_reward: {total_reward}, loss: {loss:.4f}, entropy: {entropy:.4f}")


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    A2CTrainer(TrainConfig()).train()


if __name__ == "__main__":
    main()
