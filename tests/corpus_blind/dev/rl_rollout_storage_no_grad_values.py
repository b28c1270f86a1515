# corpus: A2C with a preallocated RolloutStorage: acting under torch.no_grad(), values/log-probs copied into storage, returns computed in a helper, losses re-evaluated from storage, stats kept as floats
# source: https://github.com/ray-project/ray/issues/6962
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.base = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.dist_head = nn.Linear(hidden, n_actions)
        self.critic_linear = nn.Linear(hidden, 1)

    def act(self, obs):
        h = self.base(obs)
        dist = Categorical(logits=self.dist_head(h))
        action = dist.sample()
        return self.critic_linear(h), action, dist.log_prob(action)

    def get_value(self, obs):
        return self.critic_linear(self.base(obs))

    def evaluate_actions(self, obs, action):
        h = self.base(obs)
        dist = Categorical(logits=self.dist_head(h))
        return self.critic_linear(h), dist.log_prob(action), dist.entropy().mean()


class RolloutStorage:
    def __init__(self, num_steps, num_processes, obs_dim):
        self.obs = torch.zeros(num_steps + 1, num_processes, obs_dim)
        self.rewards = torch.zeros(num_steps, num_processes, 1)
        self.value_preds = torch.zeros(num_steps + 1, num_processes, 1)
        self.returns = torch.zeros(num_steps + 1, num_processes, 1)
        self.action_log_probs = torch.zeros(num_steps, num_processes)
        self.actions = torch.zeros(num_steps, num_processes, dtype=torch.long)
        self.masks = torch.ones(num_steps + 1, num_processes, 1)
        self.num_steps = num_steps
        self.step = 0

    def insert(self, obs, actions, action_log_probs, value_preds, rewards, masks):
        self.obs[self.step + 1].copy_(obs)
        self.actions[self.step].copy_(actions)
        self.action_log_probs[self.step].copy_(action_log_probs)
        self.value_preds[self.step].copy_(value_preds)
        self.rewards[self.step].copy_(rewards)
        self.masks[self.step + 1].copy_(masks)
        self.step = (self.step + 1) % self.num_steps

    def after_update(self):
        self.obs[0].copy_(self.obs[-1])
        self.masks[0].copy_(self.masks[-1])

    def compute_returns(self, next_value, gamma, gae_lambda):
        self.value_preds[-1] = next_value
        gae = 0
        for step in reversed(range(self.rewards.size(0))):
            delta = (self.rewards[step] + gamma * self.value_preds[step + 1] * self.masks[step + 1]
                     - self.value_preds[step])
            gae = delta + gamma * gae_lambda * self.masks[step + 1] * gae
            self.returns[step] = gae + self.value_preds[step]


class A2C:
    def __init__(self, actor_critic, value_loss_coef=0.5, entropy_coef=0.01, lr=7e-4):
        self.actor_critic = actor_critic
        self.value_loss_coef = value_loss_coef
        self.entropy_coef = entropy_coef
        self.optimizer = torch.optim.RMSprop(actor_critic.parameters(), lr=lr, eps=1e-5, alpha=0.99)

    def update(self, rollouts):
        num_steps, num_processes, obs_dim = rollouts.obs[:-1].size()
        values, action_log_probs, dist_entropy = self.actor_critic.evaluate_actions(
            rollouts.obs[:-1].view(-1, obs_dim), rollouts.actions.view(-1))
        values = values.view(num_steps, num_processes, 1)
        action_log_probs = action_log_probs.view(num_steps, num_processes, 1)
        advantages = rollouts.returns[:-1] - values
        value_loss = advantages.pow(2).mean()
        action_loss = -(advantages.detach() * action_log_probs).mean()
        self.optimizer.zero_grad()
        (value_loss * self.value_loss_coef + action_loss - dist_entropy * self.entropy_coef).backward()
        nn.utils.clip_grad_norm_(self.actor_critic.parameters(), 0.5)
        self.optimizer.step()
        return value_loss.item(), action_loss.item(), dist_entropy.item()


def main():
    torch.manual_seed(0)
    num_steps, num_processes, obs_dim = 5, 4, 6
    actor_critic = Policy(obs_dim, 3)
    agent = A2C(actor_critic)
    rollouts = RolloutStorage(num_steps, num_processes, obs_dim)
    rollouts.obs[0].copy_(torch.randn(num_processes, obs_dim))
    stats = []
    for j in range(3):
        for step in range(num_steps):
            with torch.no_grad():
                value, action, action_log_prob = actor_critic.act(rollouts.obs[step])
            obs = torch.randn(num_processes, obs_dim)
            reward = (action == 0).float().unsqueeze(1)
            masks = torch.ones(num_processes, 1)
            rollouts.insert(obs, action, action_log_prob, value, reward, masks)
        with torch.no_grad():
            next_value = actor_critic.get_value(rollouts.obs[-1])
        rollouts.compute_returns(next_value, gamma=0.99, gae_lambda=0.95)
        stats.append(agent.update(rollouts))
        rollouts.after_update()
    return actor_critic, rollouts, stats


if __name__ == "__main__":
    actor_critic, rollouts, stats = main()
    assert all(p.grad is not None for p in actor_critic.parameters())
    for t in (rollouts.obs, rollouts.value_preds, rollouts.returns, rollouts.action_log_probs):
        assert t.grad_fn is None and not t.requires_grad
    assert all(isinstance(x, float) for s in stats for x in s)
