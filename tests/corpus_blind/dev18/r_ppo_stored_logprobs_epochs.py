# corpus: a2c-ppo-acktr-style PPO keeps the values, log-probs and entropies returned by act() (with their graphs) in the rollout storage instead of re-evaluating actions, concatenates them once before the epoch loop, and the second PPO epoch backpropagates through the already freed rollout graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/42
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data.sampler import BatchSampler, SubsetRandomSampler


class Policy(nn.Module):
    def __init__(self, obs_dim, num_actions, hidden_size=32):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_dim, hidden_size), nn.Tanh(),
                                   nn.Linear(hidden_size, hidden_size), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(obs_dim, hidden_size), nn.Tanh(),
                                    nn.Linear(hidden_size, 1))
        self.dist = nn.Linear(hidden_size, num_actions)

    def act(self, inputs):
        value = self.critic(inputs)
        dist = torch.distributions.Categorical(logits=self.dist(self.actor(inputs)))
        action = dist.sample()
        action_log_probs = dist.log_prob(action).unsqueeze(-1)
        dist_entropy = dist.entropy().mean()
        return value, action.unsqueeze(-1), action_log_probs, dist_entropy

    def get_value(self, inputs):
        return self.critic(inputs)


class RolloutStorage:
    def __init__(self, num_steps, num_processes, obs_dim):
        self.obs = torch.zeros(num_steps + 1, num_processes, obs_dim)
        self.rewards = torch.zeros(num_steps, num_processes, 1)
        self.value_preds = torch.zeros(num_steps + 1, num_processes, 1)
        self.returns = torch.zeros(num_steps + 1, num_processes, 1)
        self.action_log_probs = torch.zeros(num_steps, num_processes, 1)
        self.actions = torch.zeros(num_steps, num_processes, 1).long()
        self.masks = torch.ones(num_steps + 1, num_processes, 1)
        self.saved_values, self.saved_log_probs, self.saved_entropy = [], [], []
        self.num_steps, self.step = num_steps, 0

    def insert(self, obs, actions, action_log_probs, value_preds, dist_entropy, rewards, masks):
        self.obs[self.step + 1].copy_(obs)
        self.actions[self.step].copy_(actions)
        self.action_log_probs[self.step].copy_(action_log_probs.detach())
        self.value_preds[self.step].copy_(value_preds.detach())
        self.rewards[self.step].copy_(rewards)
        self.masks[self.step + 1].copy_(masks)
        self.saved_values.append(value_preds)
        self.saved_log_probs.append(action_log_probs)
        self.saved_entropy.append(dist_entropy)
        self.step = (self.step + 1) % self.num_steps

    def after_update(self):
        self.obs[0].copy_(self.obs[-1])
        self.masks[0].copy_(self.masks[-1])
        self.saved_values, self.saved_log_probs, self.saved_entropy = [], [], []

    def compute_returns(self, next_value, gamma):
        self.returns[-1] = next_value
        for step in reversed(range(self.rewards.size(0))):
            self.returns[step] = self.returns[step + 1] * gamma * self.masks[step + 1] + self.rewards[step]


class PPO:
    def __init__(self, actor_critic, clip_param, ppo_epoch, num_mini_batch, value_loss_coef,
                 entropy_coef, lr, max_grad_norm=0.5):
        self.actor_critic = actor_critic
        self.clip_param, self.ppo_epoch, self.num_mini_batch = clip_param, ppo_epoch, num_mini_batch
        self.value_loss_coef, self.entropy_coef = value_loss_coef, entropy_coef
        self.max_grad_norm = max_grad_norm
        self.optimizer = optim.Adam(actor_critic.parameters(), lr=lr, eps=1e-5)

    def update(self, rollouts):
        advantages = rollouts.returns[:-1] - rollouts.value_preds[:-1]
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-5)
        batch_size = rollouts.rewards.size(0) * rollouts.rewards.size(1)
        values_all = torch.cat(rollouts.saved_values).view(-1, 1)  # also: GG103
        action_log_probs_all = torch.cat(rollouts.saved_log_probs).view(-1, 1)  # expect: GG103
        dist_entropy = torch.stack(rollouts.saved_entropy).mean()
        for e in range(self.ppo_epoch):
            sampler = BatchSampler(SubsetRandomSampler(range(batch_size)),
                                   batch_size // self.num_mini_batch, drop_last=True)
            for indices in sampler:
                values = values_all[indices]
                action_log_probs = action_log_probs_all[indices]
                old_action_log_probs_batch = rollouts.action_log_probs.view(-1, 1)[indices]
                return_batch = rollouts.returns[:-1].view(-1, 1)[indices]
                adv_targ = advantages.view(-1, 1)[indices]
                ratio = torch.exp(action_log_probs - old_action_log_probs_batch)
                surr1 = ratio * adv_targ
                surr2 = torch.clamp(ratio, 1.0 - self.clip_param, 1.0 + self.clip_param) * adv_targ
                action_loss = -torch.min(surr1, surr2).mean()
                value_loss = 0.5 * (return_batch - values).pow(2).mean()
                self.optimizer.zero_grad()
                (value_loss * self.value_loss_coef + action_loss - dist_entropy * self.entropy_coef).backward()  # also: GG103
                nn.utils.clip_grad_norm_(self.actor_critic.parameters(), self.max_grad_norm)
                self.optimizer.step()
        return value_loss.item(), action_loss.item(), dist_entropy.item()


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    num_steps, num_processes, obs_dim, num_actions = 8, 2, 4, 2
    actor_critic = Policy(obs_dim, num_actions)
    agent = PPO(actor_critic, clip_param=0.2, ppo_epoch=4, num_mini_batch=1,
                value_loss_coef=0.5, entropy_coef=0.01, lr=7e-4)
    rollouts = RolloutStorage(num_steps, num_processes, obs_dim)
    obs = torch.randn(num_processes, obs_dim)
    rollouts.obs[0].copy_(obs)
    for j in range(2):
        for step in range(num_steps):
            value, action, action_log_prob, dist_entropy = actor_critic.act(obs)
            obs = torch.randn(num_processes, obs_dim)
            reward = (action == 1).float()
            masks = torch.ones(num_processes, 1)
            rollouts.insert(obs, action, action_log_prob, value, dist_entropy, reward, masks)
        with torch.no_grad():
            next_value = actor_critic.get_value(rollouts.obs[-1])
        rollouts.compute_returns(next_value, gamma=0.99)
        print(j, agent.update(rollouts))
        rollouts.after_update()


if __name__ == "__main__":
    main()
