# corpus: A2C/PPO2 runner stores log_prob and values of each episode as numpy arrays; compute_a2c_loss rebuilds them with torch.from_numpy, so the actor/critic loss has no graph when backward() is called
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/Kostis-S-Z/exploring_meta/issues/16
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=6, n_actions=3, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        mass = Categorical(logits=self.pi(h))
        action = mass.sample()
        return action, {"mass": mass, "log_prob": mass.log_prob(action), "value": self.v(h).squeeze(-1)}


class Runner:
    def __init__(self, obs_dim=6, n_steps=16):
        self.obs_dim, self.n_steps = obs_dim, n_steps

    def run(self, policy):
        keys = ["states", "actions", "rewards", "dones", "values", "log_prob"]
        episodes = {k: [] for k in keys}
        state = np.random.randn(self.obs_dim).astype(np.float32)
        for t in range(self.n_steps):
            action, info = policy(torch.from_numpy(state))
            reward, done = float(np.random.randn()), t == self.n_steps - 1
            for k, v in zip(keys, [state, action.item(), reward, done, info["value"].item(), info["log_prob"].item()]):
                episodes[k].append(v)
            state = np.random.randn(self.obs_dim).astype(np.float32)
        return {k: np.asarray(v, dtype=np.float32) for k, v in episodes.items()}


def compute_adv_ret(train_episodes, gamma=0.99):
    rewards, dones, values = train_episodes["rewards"], train_episodes["dones"], train_episodes["values"]
    returns, R = np.zeros_like(rewards), 0.0
    for t in reversed(range(len(rewards))):
        R = rewards[t] + gamma * R * (1.0 - dones[t])
        returns[t] = R
    advantages = returns - values
    train_episodes["advantages"] = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    train_episodes["returns"] = returns
    return train_episodes


def compute_a2c_loss(episode_samples, device="cpu"):
    log_prob = torch.from_numpy(episode_samples["log_prob"]).to(device)  # expect: GG106
    advantages = torch.from_numpy(episode_samples["advantages"]).to(device)
    values = torch.from_numpy(episode_samples["values"]).to(device)  # also: GG106
    returns = torch.from_numpy(episode_samples["returns"]).to(device)
    policy_loss = -(log_prob * advantages).mean()
    value_loss = 0.5 * (returns - values).pow(2).mean()
    return policy_loss, value_loss


def train(iterations=3):
    policy = ActorCritic()
    optimizer = torch.optim.Adam(policy.parameters(), lr=7e-4)
    runner = Runner()
    for it in range(iterations):
        samples = compute_adv_ret(runner.run(policy))
        actor_loss, critic_loss = compute_a2c_loss(samples)
        loss = actor_loss + 0.5 * critic_loss
        optimizer.zero_grad()
        loss.backward()  # also: GG106
        optimizer.step()
        print(f"iter {it}: actor {actor_loss.item():.3f} critic {critic_loss.item():.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    train()
