# corpus: recurrent PPO (a2c-ppo-acktr style) where the rollout's GRU hidden states are collected without torch.no_grad() so they keep the rollout graph; every PPO epoch/minibatch re-evaluates one step from those stored states and backpropagates into the same rollout graph, which the first backward already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/82
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Categorical


class GRUBase(nn.Module):
    def __init__(self, num_inputs, hidden_size=16):
        super().__init__()
        self.hidden_size = hidden_size
        self.gru = nn.GRUCell(num_inputs, hidden_size)
        self.actor = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.Tanh(), nn.Linear(hidden_size, 1))

    def forward(self, inputs, rnn_hxs, masks):
        x = rnn_hxs = self.gru(inputs, rnn_hxs * masks)
        return self.critic(x), self.actor(x), rnn_hxs


class Policy(nn.Module):
    def __init__(self, obs_dim, num_actions):
        super().__init__()
        self.base = GRUBase(obs_dim)
        self.dist = nn.Linear(self.base.hidden_size, num_actions)

    @property
    def recurrent_hidden_state_size(self):
        return self.base.hidden_size

    def act(self, inputs, rnn_hxs, masks):
        value, actor_features, rnn_hxs = self.base(inputs, rnn_hxs, masks)
        dist = Categorical(logits=self.dist(actor_features))
        action = dist.sample()
        action_log_probs = dist.log_prob(action)
        return value.detach(), action, action_log_probs.detach(), rnn_hxs

    def get_value(self, inputs, rnn_hxs, masks):
        value, _, _ = self.base(inputs, rnn_hxs, masks)
        return value

    def evaluate_actions(self, inputs, rnn_hxs, masks, action):
        value, actor_features, rnn_hxs = self.base(inputs, rnn_hxs, masks)
        dist = Categorical(logits=self.dist(actor_features))
        return value, dist.log_prob(action), dist.entropy().mean(), rnn_hxs


class RolloutStorage:
    def __init__(self, num_steps, num_processes, obs_dim, hidden_size):
        self.num_steps = num_steps
        self.obs = [torch.zeros(num_processes, obs_dim)]
        self.recurrent_hidden_states = [torch.zeros(num_processes, hidden_size)]
        self.masks = [torch.ones(num_processes, 1)]
        self.rewards, self.value_preds, self.actions, self.action_log_probs = [], [], [], []

    def insert(self, obs, recurrent_hidden_states, actions, action_log_probs, value_preds, rewards, masks):
        self.obs.append(obs)
        self.recurrent_hidden_states.append(recurrent_hidden_states)
        self.actions.append(actions)
        self.action_log_probs.append(action_log_probs)
        self.value_preds.append(value_preds)
        self.rewards.append(rewards)
        self.masks.append(masks)

    def compute_returns(self, next_value, gamma=0.99):
        self.returns = [None] * self.num_steps + [next_value]
        for step in reversed(range(self.num_steps)):
            self.returns[step] = self.returns[step + 1] * gamma * self.masks[step + 1] + self.rewards[step]

    def feed_forward_generator(self, advantages, num_mini_batch):
        obs = torch.cat(self.obs[:-1])
        hxs = torch.cat(self.recurrent_hidden_states[:-1])
        masks = torch.cat(self.masks[:-1])
        actions = torch.cat(self.actions)
        value_preds = torch.cat(self.value_preds)
        returns = torch.cat(self.returns[:-1])
        old_log_probs = torch.cat(self.action_log_probs)
        adv = torch.cat(advantages)
        perm = torch.randperm(obs.shape[0])
        for idx in perm.chunk(num_mini_batch):
            yield (obs[idx], hxs[idx], actions[idx], value_preds[idx], returns[idx],
                   masks[idx], old_log_probs[idx], adv[idx])


class PPO:
    def __init__(self, actor_critic, clip_param=0.2, ppo_epoch=2, num_mini_batch=2,
                 value_loss_coef=0.5, entropy_coef=0.01, lr=7e-4, max_grad_norm=0.5):
        self.actor_critic = actor_critic
        self.clip_param = clip_param
        self.ppo_epoch = ppo_epoch
        self.num_mini_batch = num_mini_batch
        self.value_loss_coef = value_loss_coef
        self.entropy_coef = entropy_coef
        self.max_grad_norm = max_grad_norm
        self.optimizer = optim.Adam(actor_critic.parameters(), lr=lr, eps=1e-5)

    def update(self, rollouts):
        advantages = [r - v for r, v in zip(rollouts.returns[:-1], rollouts.value_preds)]
        for e in range(self.ppo_epoch):
            for sample in rollouts.feed_forward_generator(advantages, self.num_mini_batch):
                (obs_batch, recurrent_hidden_states_batch, actions_batch, value_preds_batch,
                 return_batch, masks_batch, old_action_log_probs_batch, adv_targ) = sample
                values, action_log_probs, dist_entropy, _ = self.actor_critic.evaluate_actions(
                    obs_batch, recurrent_hidden_states_batch, masks_batch, actions_batch)
                ratio = torch.exp(action_log_probs - old_action_log_probs_batch)
                surr1 = ratio * adv_targ.squeeze(-1)
                surr2 = torch.clamp(ratio, 1.0 - self.clip_param, 1.0 + self.clip_param) * adv_targ.squeeze(-1)
                action_loss = -torch.min(surr1, surr2).mean()
                value_loss = 0.5 * (return_batch - values).pow(2).mean()
                self.optimizer.zero_grad()
                loss = value_loss * self.value_loss_coef + action_loss - dist_entropy * self.entropy_coef
                loss.backward()  # also: GG103
                nn.utils.clip_grad_norm_(self.actor_critic.parameters(), self.max_grad_norm)
                self.optimizer.step()
        return value_loss.item(), action_loss.item()


class VecToyEnv:
    def __init__(self, num_processes, obs_dim=4):
        self.n, self.obs_dim = num_processes, obs_dim

    def reset(self):
        self.t = 0
        self.s = torch.randn(self.n, self.obs_dim)
        return self.s

    def step(self, action):
        self.t += 1
        self.s = 0.9 * self.s + 0.1 * (action.float().unsqueeze(-1) - 0.5)
        reward = -self.s[:, :1].abs()
        done = torch.full((self.n, 1), float(self.t % 5 == 0))
        return self.s, reward, done


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    num_processes, num_steps = 2, 6
    envs = VecToyEnv(num_processes)
    actor_critic = Policy(4, 2)
    agent = PPO(actor_critic)
    for j in range(2):
        rollouts = RolloutStorage(num_steps, num_processes, 4, actor_critic.recurrent_hidden_state_size)
        rollouts.obs[0] = envs.reset()
        for step in range(num_steps):
            obs_t, hxs_t, masks_t = rollouts.obs[step], rollouts.recurrent_hidden_states[step], rollouts.masks[step]
            value, action, action_log_prob, recurrent_hidden_states = actor_critic.act(obs_t, hxs_t, masks_t)  # expect: GG103
            obs, reward, done = envs.step(action)
            rollouts.insert(obs, recurrent_hidden_states, action, action_log_prob, value, reward, 1.0 - done)
        with torch.no_grad():
            next_value = actor_critic.get_value(rollouts.obs[-1], rollouts.recurrent_hidden_states[-1],
                                                rollouts.masks[-1])
        rollouts.compute_returns(next_value)
        value_loss, action_loss = agent.update(rollouts)
        print(f"update {j}: value_loss {value_loss:.4f} action_loss {action_loss:.4f}")


if __name__ == "__main__":
    main()
