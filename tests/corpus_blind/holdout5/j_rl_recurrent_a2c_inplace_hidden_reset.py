# corpus: recurrent actor-critic (GRU memory module) trained A2C-style by backpropagating through the rollout; Memory.reset() zeroes the finished environments' hidden states in place, overwriting a tensor the actor/critic heads saved for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/leggedrobotics/rsl_rl/pull/35
import argparse

import torch
import torch.nn as nn
from torch.distributions import Normal


class Memory(nn.Module):
    def __init__(self, input_size, hidden_size=32):
        super().__init__()
        self.rnn = nn.GRUCell(input_size, hidden_size)
        self.hidden_size = hidden_size
        self.hidden_states = None

    def forward(self, x):
        if self.hidden_states is None:
            self.hidden_states = torch.zeros(x.shape[0], self.hidden_size)
        self.hidden_states = self.rnn(x, self.hidden_states)
        return self.hidden_states

    def reset(self, dones=None):
        if self.hidden_states is None:
            return
        self.hidden_states[dones, :] = 0.0  # expect: GG107


class ActorCriticRecurrent(nn.Module):
    def __init__(self, num_obs, num_actions, hidden=32):
        super().__init__()
        self.memory_a = Memory(num_obs, hidden)
        self.actor = nn.Sequential(nn.Linear(hidden, hidden), nn.ELU(), nn.Linear(hidden, num_actions))
        self.critic = nn.Sequential(nn.Linear(hidden, hidden), nn.ELU(), nn.Linear(hidden, 1))
        self.log_std = nn.Parameter(torch.zeros(num_actions))

    def reset(self, dones=None):
        self.memory_a.reset(dones)

    def act(self, obs):
        latent = self.memory_a(obs)
        dist = Normal(self.actor(latent), self.log_std.exp())
        actions = dist.sample()
        return actions, dist.log_prob(actions).sum(-1), self.critic(latent).squeeze(-1)


class VecEnv:
    def __init__(self, num_envs, num_obs, num_actions, episode_length):
        self.num_envs, self.num_obs, self.num_actions = num_envs, num_obs, num_actions
        self.episode_length = episode_length
        self.t = torch.zeros(num_envs, dtype=torch.long)

    def reset(self):
        return torch.randn(self.num_envs, self.num_obs)

    def step(self, actions):
        self.t += 1
        rewards = -actions.pow(2).sum(-1)
        dones = self.t % self.episode_length == 0
        return torch.randn(self.num_envs, self.num_obs), rewards, dones


class A2C:
    def __init__(self, actor_critic, args):
        self.actor_critic = actor_critic
        self.gamma = args.gamma
        self.value_coef = args.value_coef
        self.optimizer = torch.optim.Adam(actor_critic.parameters(), lr=args.lr)

    def rollout(self, env, obs, num_steps):
        log_probs, values, rewards, masks = [], [], [], []
        for _ in range(num_steps):
            actions, log_prob, value = self.actor_critic.act(obs)
            obs, reward, dones = env.step(actions)
            self.actor_critic.reset(dones)
            log_probs.append(log_prob)
            values.append(value)
            rewards.append(reward)
            masks.append((~dones).float())
        return obs, log_probs, values, rewards, masks

    def update(self, log_probs, values, rewards, masks):
        returns, ret = [], values[-1].detach()
        for r, m in zip(reversed(rewards), reversed(masks)):
            ret = r + self.gamma * ret * m
            returns.insert(0, ret)
        returns = torch.stack(returns)
        values = torch.stack(values)
        advantages = returns - values
        policy_loss = -(torch.stack(log_probs) * advantages.detach()).mean()
        value_loss = advantages.pow(2).mean()
        loss = policy_loss + self.value_coef * value_loss
        self.optimizer.zero_grad()
        loss.backward()  # also: GG107
        self.optimizer.step()
        return loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--num-steps", type=int, default=6)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--value-coef", type=float, default=0.5)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args([])

    torch.manual_seed(0)
    env = VecEnv(args.num_envs, num_obs=8, num_actions=2, episode_length=3)
    agent = A2C(ActorCriticRecurrent(8, 2), args)
    obs = env.reset()
    for it in range(2):
        obs, log_probs, values, rewards, masks = agent.rollout(env, obs, args.num_steps)
        agent.actor_critic.memory_a.hidden_states = agent.actor_critic.memory_a.hidden_states.detach()
        print(it, agent.update(log_probs, values, rewards, masks))


if __name__ == "__main__":
    main()
