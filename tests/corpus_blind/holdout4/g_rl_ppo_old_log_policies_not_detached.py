# corpus: PPO agent; collect_rollout() concatenates the rollout's old log-probs without .detach(), so every minibatch of the K-epoch update backpropagates into the rollout graph the first minibatch already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/vietnh1009/Super-mario-bros-PPO-pytorch/issues/5
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


@dataclass
class PPOConfig:
    num_local_steps: int = 8
    num_processes: int = 2
    num_epochs: int = 2
    batch_size: int = 4
    gamma: float = 0.9
    tau: float = 1.0
    epsilon: float = 0.2
    beta: float = 0.01
    lr: float = 1e-3


class FakeMarioEnv:
    """Stands in for the vectorised Super Mario environments."""

    def __init__(self, num_processes, obs_dim):
        self.num_processes = num_processes
        self.obs_dim = obs_dim

    def reset(self):
        return torch.randn(self.num_processes, self.obs_dim)

    def step(self, actions):
        next_obs = torch.randn(self.num_processes, self.obs_dim)
        rewards = torch.rand(self.num_processes)
        dones = (torch.rand(self.num_processes) < 0.1).float()
        return next_obs, rewards, dones


class PPONet(nn.Module):
    def __init__(self, obs_dim, num_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.actor_linear = nn.Linear(32, num_actions)
        self.critic_linear = nn.Linear(32, 1)

    def forward(self, x):
        x = self.body(x)
        return self.actor_linear(x), self.critic_linear(x)


class PPOAgent:
    def __init__(self, cfg, obs_dim, num_actions):
        self.cfg = cfg
        self.model = PPONet(obs_dim, num_actions)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)

    def collect_rollout(self, env, curr_states):
        cfg = self.cfg
        old_log_policies, actions, values, states, rewards, dones = [], [], [], [], [], []
        for _ in range(cfg.num_local_steps):
            states.append(curr_states)
            logits, value = self.model(curr_states)
            values.append(value.squeeze(-1))
            policy = F.softmax(logits, dim=1)
            old_m = Categorical(policy)
            action = old_m.sample()
            actions.append(action)
            old_log_policies.append(old_m.log_prob(action))
            curr_states, reward, done = env.step(action)
            rewards.append(reward)
            dones.append(done)
        _, next_value = self.model(curr_states)
        next_value = next_value.squeeze(-1)
        old_log_policies = torch.cat(old_log_policies)  # expect: GG103
        actions = torch.cat(actions)
        values = torch.cat(values).detach()
        states = torch.cat(states)

        gae = torch.zeros(cfg.num_processes)
        R = []
        step_values = values.view(cfg.num_local_steps, cfg.num_processes)
        for value, reward, done in list(zip(step_values, rewards, dones))[::-1]:
            gae = gae * cfg.gamma * cfg.tau
            gae = gae + reward + cfg.gamma * next_value.detach() * (1 - done) - value.detach()
            next_value = value
            R.append(gae + value)
        R = R[::-1]
        R = torch.cat(R).detach()
        advantages = R - values
        return (states, actions, old_log_policies, R, advantages), curr_states

    def update(self, rollout):
        cfg = self.cfg
        states, actions, old_log_policies, R, advantages = rollout
        n = cfg.num_local_steps * cfg.num_processes
        losses = []
        for _ in range(cfg.num_epochs):
            indice = torch.randperm(n)
            for j in range(cfg.batch_size):
                batch_indices = indice[int(j * (n / cfg.batch_size)): int((j + 1) * (n / cfg.batch_size))]
                logits, value = self.model(states[batch_indices])
                new_policy = F.softmax(logits, dim=1)
                new_m = Categorical(new_policy)
                new_log_policy = new_m.log_prob(actions[batch_indices])
                ratio = torch.exp(new_log_policy - old_log_policies[batch_indices])  # also: GG103
                actor_loss = -torch.mean(torch.min(
                    ratio * advantages[batch_indices],
                    torch.clamp(ratio, 1.0 - cfg.epsilon, 1.0 + cfg.epsilon) * advantages[batch_indices]))
                critic_loss = F.smooth_l1_loss(R[batch_indices], value.squeeze(-1))
                entropy_loss = torch.mean(new_m.entropy())
                total_loss = actor_loss + critic_loss - cfg.beta * entropy_loss
                self.optimizer.zero_grad()
                total_loss.backward()  # also: GG103
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)
                self.optimizer.step()
                losses.append(total_loss.item())
        return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    cfg = PPOConfig()
    env = FakeMarioEnv(cfg.num_processes, obs_dim=10)
    agent = PPOAgent(cfg, obs_dim=10, num_actions=4)
    curr_states = env.reset()
    for episode in range(2):
        rollout, curr_states = agent.collect_rollout(env, curr_states)
        mean_loss = agent.update(rollout)
        print(f"episode {episode}: loss {mean_loss:.4f}")


if __name__ == "__main__":
    main()
