# corpus: option-critic training loop carries `state = get_state(next_obs)` into the next step, so the next policy-gradient loss backpropagates through features computed before the previous RMSprop step changed the feature weights.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/lweitkamp/option-critic-pytorch/issues/9
import argparse
import random
from copy import deepcopy
from math import exp

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Bernoulli, Categorical


def to_tensor(obs):
    return torch.FloatTensor(np.asarray(obs, dtype=np.float32))


class ToyEnv:
    def __init__(self, obs_dim=4, n_actions=2, horizon=12):
        self.obs_dim, self.n_actions, self.horizon = obs_dim, n_actions, horizon

    def reset(self):
        self.t = 0
        return np.random.randn(self.obs_dim)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == 0 else 0.0
        return np.random.randn(self.obs_dim), reward, self.t >= self.horizon, {}


class ReplayBuffer:
    def __init__(self, capacity, seed=0):
        self.rng = random.Random(seed)
        self.buffer = []
        self.capacity = capacity

    def push(self, obs, option, reward, next_obs, done):
        self.buffer.append((obs, option, reward, next_obs, done))
        self.buffer = self.buffer[-self.capacity:]

    def sample(self, batch_size):
        obs, option, reward, next_obs, done = zip(*self.rng.sample(self.buffer, batch_size))
        return np.stack(obs), option, reward, np.stack(next_obs), done

    def __len__(self):
        return len(self.buffer)


class OptionCriticFeatures(nn.Module):
    def __init__(self, in_features, num_actions, num_options, temperature=1.0,
                 eps_start=1.0, eps_min=0.1, eps_decay=int(1e6)):
        super().__init__()
        self.num_options = num_options
        self.temperature = temperature
        self.eps_min, self.eps_start, self.eps_decay = eps_min, eps_start, eps_decay
        self.num_steps = 0
        self.features = nn.Sequential(
            nn.Linear(in_features, 32), nn.ReLU(), nn.Linear(32, 64), nn.ReLU())
        self.Q = nn.Linear(64, num_options)
        self.terminations = nn.Linear(64, num_options)
        self.options_W = nn.Parameter(torch.zeros(num_options, 64, num_actions))
        self.options_b = nn.Parameter(torch.zeros(num_options, num_actions))

    def get_state(self, obs):
        if obs.ndim < 2:
            obs = obs.unsqueeze(0)
        return self.features(obs)

    def get_Q(self, state):
        return self.Q(state)

    def predict_option_termination(self, state, current_option):
        termination = self.terminations(state)[:, current_option].sigmoid()
        option_termination = Bernoulli(termination).sample()
        next_option = self.get_Q(state).argmax(dim=-1)
        return bool(option_termination.item()), next_option.item()

    def get_terminations(self, state):
        return self.terminations(state).sigmoid()

    def get_action(self, state, option):
        logits = state @ self.options_W[option] + self.options_b[option]
        action_dist = Categorical((logits / self.temperature).softmax(dim=-1))
        action = action_dist.sample()
        return action.item(), action_dist.log_prob(action), action_dist.entropy()

    def greedy_option(self, state):
        return self.get_Q(state).argmax(dim=-1).item()

    @property
    def epsilon(self):
        eps = self.eps_min + (self.eps_start - self.eps_min) * exp(-self.num_steps / self.eps_decay)
        self.num_steps += 1
        return eps


def critic_loss_fn(model, model_prime, data_batch, args):
    obs, options, rewards, next_obs, dones = data_batch
    batch_idx = torch.arange(len(options)).long()
    options = torch.LongTensor(options)
    rewards = torch.FloatTensor(rewards)
    masks = 1 - torch.FloatTensor(dones)
    Q = model.get_Q(model.get_state(to_tensor(obs)))
    next_Q_prime = model_prime.get_Q(model_prime.get_state(to_tensor(next_obs)))
    next_term = model.get_terminations(model.get_state(to_tensor(next_obs))).detach()[batch_idx, options]
    gt = rewards + masks * args.gamma * (
        (1 - next_term) * next_Q_prime[batch_idx, options] + next_term * next_Q_prime.max(dim=-1)[0])
    return (Q[batch_idx, options] - gt.detach()).pow(2).mul(0.5).mean()


def actor_loss_fn(obs, option, logp, entropy, reward, done, next_obs, model, model_prime, args):
    state = model.get_state(to_tensor(obs))
    next_state = model.get_state(to_tensor(next_obs))
    next_state_prime = model_prime.get_state(to_tensor(next_obs))
    option_term_prob = model.get_terminations(state)[:, option]
    next_option_term_prob = model.get_terminations(next_state)[:, option].detach()
    Q = model.get_Q(state).detach().squeeze()
    next_Q_prime = model_prime.get_Q(next_state_prime).detach().squeeze()
    gt = reward + (1 - done) * args.gamma * (
        (1 - next_option_term_prob) * next_Q_prime[option] + next_option_term_prob * next_Q_prime.max(dim=-1)[0])
    termination_loss = option_term_prob * (Q[option].detach() - Q.max(dim=-1)[0].detach() + args.termination_reg) * (1 - done)
    policy_loss = -logp * (gt.detach() - Q[option]) - args.entropy_reg * entropy
    return termination_loss + policy_loss


def run(args):
    env = ToyEnv()
    option_critic = OptionCriticFeatures(env.obs_dim, env.n_actions, args.num_options)
    option_critic_prime = deepcopy(option_critic)
    optim = torch.optim.RMSprop(option_critic.parameters(), lr=args.learning_rate)
    buffer = ReplayBuffer(capacity=args.max_history, seed=args.seed)
    steps = 0
    while steps < args.max_steps_total:
        obs = env.reset()
        state = option_critic.get_state(to_tensor(obs))
        greedy_option = option_critic.greedy_option(state)
        current_option = 0
        done, option_termination = False, True
        while not done:
            epsilon = option_critic.epsilon
            if option_termination:
                current_option = np.random.choice(args.num_options) if np.random.rand() < epsilon else greedy_option
            action, logp, entropy = option_critic.get_action(state, current_option)
            next_obs, reward, done, _ = env.step(action)
            buffer.push(obs, current_option, reward, next_obs, done)
            state = option_critic.get_state(to_tensor(next_obs))  # expect: GG104
            option_termination, greedy_option = option_critic.predict_option_termination(state, current_option)
            if len(buffer) > args.batch_size:
                loss = actor_loss_fn(obs, current_option, logp, entropy, reward, done, next_obs,
                                     option_critic, option_critic_prime, args)
                if steps % args.update_frequency == 0:
                    loss += critic_loss_fn(option_critic, option_critic_prime, buffer.sample(args.batch_size), args)
                optim.zero_grad()
                loss.backward()  # also: GG104
                optim.step()
                if steps % args.freeze_interval == 0:
                    option_critic_prime.load_state_dict(option_critic.state_dict())
            steps += 1
            obs = next_obs
        print("episode done, steps", steps)


def main():
    parser = argparse.ArgumentParser(description="Option Critic PyTorch")
    parser.add_argument('--learning-rate', type=float, default=5e-4)
    parser.add_argument('--gamma', type=float, default=0.99)
    parser.add_argument('--max-history', type=int, default=1000)
    parser.add_argument('--batch-size', type=int, default=4)
    parser.add_argument('--freeze-interval', type=int, default=20)
    parser.add_argument('--update-frequency', type=int, default=4)
    parser.add_argument('--termination-reg', type=float, default=0.01)
    parser.add_argument('--entropy-reg', type=float, default=0.01)
    parser.add_argument('--num-options', type=int, default=2)
    parser.add_argument('--max_steps_total', type=int, default=30)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args([])
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    run(args)


if __name__ == "__main__":
    main()
