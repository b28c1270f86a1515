# corpus: PPO learner with separate actor and critic optimizers (rl_algorithms shape): each minibatch builds one total_loss, backpropagates it with retain_graph=True, steps the critic optimizer, then backpropagates the same total_loss again for the actor, whose graph still needs the critic weights the step just changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/medipixel/rl_algorithms/pull/274
from collections import deque
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_


def compute_gae(next_value, rewards, masks, values, gamma=0.99, tau=0.95):
    values = values + [next_value]
    gae, returns = 0, deque()
    for step in reversed(range(len(rewards))):
        delta = rewards[step] + gamma * values[step + 1] * masks[step] - values[step]
        gae = delta + gamma * tau * masks[step] * gae
        returns.appendleft(gae + values[step])
    return list(returns)


def ppo_iter(epoch, mini_batch_size, states, actions, values, log_probs, returns, advantages):
    batch_size = states.size(0)
    for _ in range(epoch):
        for _ in range(batch_size // mini_batch_size):
            ids = np.random.choice(batch_size, mini_batch_size)
            yield states[ids], actions[ids], values[ids], log_probs[ids], returns[ids], advantages[ids]


class Actor(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, state):
        dist = torch.distributions.Categorical(logits=self.net(state))
        return dist.sample(), dist


class PPOLearner:
    def __init__(self, obs_dim, n_actions, hyper_params):
        self.hyper_params = hyper_params
        self.actor = Actor(obs_dim, n_actions)
        self.critic = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def update_model(self, experience):
        states, actions, rewards, values, log_probs, next_state, masks = experience
        next_value = self.critic(next_state)
        returns = compute_gae(next_value, rewards, masks, values, self.hyper_params.gamma, self.hyper_params.tau)
        states, actions = torch.cat(states), torch.cat(actions).unsqueeze(1)
        returns, values = torch.cat(returns).detach(), torch.cat(values).detach()
        log_probs = torch.cat(log_probs).detach().unsqueeze(1)
        advantages = returns - values
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-7)
        epsilon, total_losses = self.hyper_params.epsilon, []
        for state, action, old_value, old_log_prob, return_, adv in ppo_iter(
                self.hyper_params.epoch, self.hyper_params.batch_size, states, actions, values, log_probs,
                returns, advantages):
            _, dist = self.actor(state)
            ratio = (dist.log_prob(action.squeeze(1)).unsqueeze(1) - old_log_prob).exp()
            surr_loss = ratio * adv
            clipped_surr_loss = torch.clamp(ratio, 1.0 - epsilon, 1.0 + epsilon) * adv
            actor_loss = -torch.min(surr_loss, clipped_surr_loss).mean()
            value = self.critic(state)
            critic_loss = 0.5 * (return_ - value).pow(2).mean()
            entropy = dist.entropy().mean()
            total_loss = actor_loss + self.hyper_params.w_value * critic_loss - self.hyper_params.w_entropy * entropy

            self.critic_optim.zero_grad()
            total_loss.backward(retain_graph=True)  # also: GG111
            clip_grad_norm_(self.critic.parameters(), self.hyper_params.gradient_clip_cr)
            self.critic_optim.step()  # expect: GG111

            self.actor_optim.zero_grad()
            total_loss.backward()  # also: GG111
            clip_grad_norm_(self.actor.parameters(), self.hyper_params.gradient_clip_ac)
            self.actor_optim.step()
            total_losses.append(total_loss.item())
        return sum(total_losses) / len(total_losses)


def collect_rollout(learner, n_steps=16, obs_dim=4):
    states, actions, rewards, values, log_probs, masks = [], [], [], [], [], []
    state = torch.randn(1, obs_dim)
    for t in range(n_steps):
        with torch.no_grad():
            action, dist = learner.actor(state)
        value = learner.critic(state)
        states.append(state)
        actions.append(action)
        log_probs.append(dist.log_prob(action))
        values.append(value)
        rewards.append(torch.tensor([[float(action.item() == int(state[0, 0] > 0))]]))
        masks.append(torch.tensor([[0.0 if t == n_steps - 1 else 1.0]]))
        state = torch.randn(1, obs_dim)
    return states, actions, rewards, values, log_probs, state, masks


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    hp = SimpleNamespace(gamma=0.99, tau=0.95, epsilon=0.2, epoch=2, batch_size=8, w_value=0.5,
                         w_entropy=1e-3, gradient_clip_ac=0.5, gradient_clip_cr=1.0)
    learner = PPOLearner(4, 2, hp)
    for update in range(2):
        loss = learner.update_model(collect_rollout(learner))
        print(f"update {update} total loss {loss:.4f}")


if __name__ == "__main__":
    main()
