# corpus: Episodic A2C collects per-step log-probs and critic values in Python lists, stacks them after the episode and backpropagates one actor+critic loss per episode with a detached baseline; the lists' graphs are consumed by that backward, nothing leaks.
# source: https://github.com/Lucasc-99/Actor-Critic/blob/049e299754a4e5e668ca1ecaa3cb8f6d14bfdafb/src/a2c.py
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Space:
    def __init__(self, shape=None, n=None):
        self.shape, self.n = shape, n

    def sample(self):
        return np.random.uniform(-1, 1, self.shape)


class BalanceEnv:
    """CartPole-like toy: keep a drifting scalar near zero; 2 actions push left/right."""

    def __init__(self, max_steps=25):
        self.observation_space = Space(shape=(4,))
        self.action_space = Space(n=2)
        self.max_steps = max_steps
        self.s, self.t = None, 0

    def seed(self, seed):
        np.random.seed(seed)

    def reset(self):
        self.s, self.t = np.random.uniform(-0.05, 0.05, 4), 0
        return self.s

    def step(self, action):
        self.t += 1
        self.s = self.s + np.array([0.02, 0.01, 0.0, 0.0]) * (1 if action == 1 else -1) + np.random.randn(4) * 0.01
        done = abs(self.s[0]) > 0.3 or self.t >= self.max_steps
        return self.s, 1.0, done, {}


class A2C(nn.Module):
    def __init__(self, env, hidden_size=16, gamma=.99, random_seed=None):
        super().__init__()
        if random_seed:
            env.seed(random_seed)
            torch.manual_seed(random_seed)
        self.env = env
        self.gamma = gamma
        self.hidden_size = hidden_size
        self.in_size = len(env.observation_space.sample().flatten())
        self.out_size = self.env.action_space.n
        self.actor = nn.Sequential(nn.Linear(self.in_size, hidden_size), nn.ReLU(),
                                   nn.Linear(hidden_size, self.out_size)).double()
        self.critic = nn.Sequential(nn.Linear(self.in_size, hidden_size), nn.ReLU(),
                                    nn.Linear(hidden_size, 1)).double()

    def train_env_episode(self, render=False):
        rewards = []
        critic_vals = []
        action_lp_vals = []
        observation = self.env.reset()
        done = False
        while not done:
            observation = torch.from_numpy(observation).double()
            action_logits = self.actor(observation)
            action = Categorical(logits=action_logits).sample()
            action_log_prob = torch.log_softmax(action_logits, dim=-1)[action]
            pred = torch.squeeze(self.critic(observation).view(-1))
            action_lp_vals.append(action_log_prob)
            critic_vals.append(pred)
            observation, reward, done, info = self.env.step(action.item())
            rewards.append(torch.tensor(reward).double())

        total_reward = sum(rewards)
        for t_i in range(len(rewards)):
            G = 0
            for t in range(t_i, len(rewards)):
                G += rewards[t] * (self.gamma ** (t - t_i))
            rewards[t_i] = G

        def f(inp):
            return torch.stack(tuple(inp), 0)

        rewards = f(rewards)
        rewards = (rewards - torch.mean(rewards)) / (torch.std(rewards) + .000000000001)
        return rewards, f(critic_vals), f(action_lp_vals), total_reward

    @staticmethod
    def compute_loss(action_p_vals, G, V, critic_loss=nn.SmoothL1Loss()):
        assert len(action_p_vals) == len(G) == len(V)
        advantage = G - V.detach()
        return -(torch.sum(action_p_vals * advantage)), critic_loss(G, V)


def train(agent, episodes=6, lr=1e-3):
    optimizer = torch.optim.Adam(agent.parameters(), lr=lr)
    episode_rewards = []
    for episode in range(episodes):
        rewards, critic_vals, action_lp_vals, total_reward = agent.train_env_episode()
        episode_rewards.append(total_reward.item())
        actor_loss, critic_loss = agent.compute_loss(action_p_vals=action_lp_vals, G=rewards, V=critic_vals)
        loss = actor_loss + critic_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return episode_rewards


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    agent = A2C(BalanceEnv(), random_seed=3)
    print("episode rewards", train(agent))


if __name__ == "__main__":
    main()
