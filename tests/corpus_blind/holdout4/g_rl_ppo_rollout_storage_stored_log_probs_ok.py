# corpus: a2c-ppo-acktr style PPO; act() runs under torch.no_grad() so the log-probs and values inserted in RolloutStorage carry no graph, and each minibatch re-evaluates the actions with a fresh forward before one summed backward (correct)
# source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/284
import torch
import torch.nn as nn
from torch.distributions import Categorical
from torch.utils.data.sampler import BatchSampler, SubsetRandomSampler


class Policy(nn.Module):
    def __init__(self, obs_dim, num_actions, hidden=32):
        super().__init__()
        self.base = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.critic_linear = nn.Linear(hidden, 1)
        self.dist = nn.Linear(hidden, num_actions)

    def act(self, inputs, deterministic=False):
        features = self.base(inputs)
        value = self.critic_linear(features)
        dist = Categorical(logits=self.dist(features))
        action = dist.mode if deterministic else dist.sample()
        action_log_probs = dist.log_prob(action).unsqueeze(-1)
        return value, action.unsqueeze(-1), action_log_probs

    def get_value(self, inputs):
        return self.critic_linear(self.base(inputs))

    def evaluate_actions(self, inputs, action):
        features = self.base(inputs)
        value = self.critic_linear(features)
        dist = Categorical(logits=self.dist(features))
        action_log_probs = dist.log_prob(action.squeeze(-1)).unsqueeze(-1)
        dist_entropy = dist.entropy().mean()
        return value, action_log_probs, dist_entropy


class RolloutStorage:
    def __init__(self, num_steps, num_processes, obs_dim):
        self.obs = torch.zeros(num_steps + 1, num_processes, obs_dim)
        self.rewards = torch.zeros(num_steps, num_processes, 1)
        self.value_preds = torch.zeros(num_steps + 1, num_processes, 1)
        self.returns = torch.zeros(num_steps + 1, num_processes, 1)
        self.action_log_probs = torch.zeros(num_steps, num_processes, 1)
        self.actions = torch.zeros(num_steps, num_processes, 1, dtype=torch.long)
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

    def compute_returns(self, next_value, gamma):
        self.returns[-1] = next_value
        for step in reversed(range(self.rewards.size(0))):
            self.returns[step] = self.returns[step + 1] * gamma * self.masks[step + 1] + self.rewards[step]

    def feed_forward_generator(self, advantages, num_mini_batch):
        num_steps, num_processes = self.rewards.size()[0:2]
        batch_size = num_processes * num_steps
        mini_batch_size = batch_size // num_mini_batch
        sampler = BatchSampler(SubsetRandomSampler(range(batch_size)), mini_batch_size, drop_last=True)
        for indices in sampler:
            obs_batch = self.obs[:-1].view(-1, self.obs.size(-1))[indices]
            actions_batch = self.actions.view(-1, 1)[indices]
            value_preds_batch = self.value_preds[:-1].view(-1, 1)[indices]
            return_batch = self.returns[:-1].view(-1, 1)[indices]
            old_action_log_probs_batch = self.action_log_probs.view(-1, 1)[indices]
            adv_targ = advantages.view(-1, 1)[indices]
            yield (obs_batch, actions_batch, value_preds_batch, return_batch,
                   old_action_log_probs_batch, adv_targ)


class PPO:
    def __init__(self, actor_critic, clip_param=0.2, ppo_epoch=3, num_mini_batch=2,
                 value_loss_coef=0.5, entropy_coef=0.01, lr=7e-4, max_grad_norm=0.5):
        self.actor_critic = actor_critic
        self.clip_param = clip_param
        self.ppo_epoch = ppo_epoch
        self.num_mini_batch = num_mini_batch
        self.value_loss_coef = value_loss_coef
        self.entropy_coef = entropy_coef
        self.max_grad_norm = max_grad_norm
        self.optimizer = torch.optim.Adam(actor_critic.parameters(), lr=lr, eps=1e-5)

    def update(self, rollouts):
        advantages = rollouts.returns[:-1] - rollouts.value_preds[:-1]
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-5)
        value_loss_epoch = action_loss_epoch = dist_entropy_epoch = 0.0
        for _ in range(self.ppo_epoch):
            for sample in rollouts.feed_forward_generator(advantages, self.num_mini_batch):
                (obs_batch, actions_batch, value_preds_batch, return_batch,
                 old_action_log_probs_batch, adv_targ) = sample
                values, action_log_probs, dist_entropy = self.actor_critic.evaluate_actions(obs_batch, actions_batch)
                ratio = torch.exp(action_log_probs - old_action_log_probs_batch)
                surr1 = ratio * adv_targ
                surr2 = torch.clamp(ratio, 1.0 - self.clip_param, 1.0 + self.clip_param) * adv_targ
                action_loss = -torch.min(surr1, surr2).mean()
                value_loss = 0.5 * (return_batch - values).pow(2).mean()
                self.optimizer.zero_grad()
                (value_loss * self.value_loss_coef + action_loss - dist_entropy * self.entropy_coef).backward()
                nn.utils.clip_grad_norm_(self.actor_critic.parameters(), self.max_grad_norm)
                self.optimizer.step()
                value_loss_epoch += value_loss.item()
                action_loss_epoch += action_loss.item()
                dist_entropy_epoch += dist_entropy.item()
        num_updates = self.ppo_epoch * self.num_mini_batch
        return value_loss_epoch / num_updates, action_loss_epoch / num_updates, dist_entropy_epoch / num_updates


def main():
    torch.manual_seed(0)
    num_steps, num_processes, obs_dim, num_actions = 8, 2, 6, 3
    actor_critic = Policy(obs_dim, num_actions)
    agent = PPO(actor_critic)
    rollouts = RolloutStorage(num_steps, num_processes, obs_dim)
    rollouts.obs[0].copy_(torch.randn(num_processes, obs_dim))
    for update in range(2):
        for step in range(num_steps):
            with torch.no_grad():
                value, action, action_log_prob = actor_critic.act(rollouts.obs[step])
            obs = torch.randn(num_processes, obs_dim)
            reward = torch.rand(num_processes, 1)
            masks = (torch.rand(num_processes, 1) > 0.1).float()
            rollouts.insert(obs, action, action_log_prob, value, reward, masks)
        with torch.no_grad():
            next_value = actor_critic.get_value(rollouts.obs[-1])
        rollouts.compute_returns(next_value, gamma=0.99)
        print(update, agent.update(rollouts))
        rollouts.after_update()


if __name__ == "__main__":
    main()
