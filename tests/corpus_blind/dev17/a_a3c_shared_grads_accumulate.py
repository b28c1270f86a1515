# corpus: A3C worker clears only the shared model's gradients (optimizer.zero_grad() sets them to None in torch 2) and never the local model's, so ensure_shared_grads hands the optimizer a local .grad that keeps summing every rollout's gradient.
# source: https://github.com/ha5ha6/pytorch_a3c_explanation/blob/6db2c058b616f86723db1b766f88a3d31894da94/train.py
import threading
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ActorCritic(nn.Module):
    def __init__(self, num_inputs, num_actions, memsize=16):
        super().__init__()
        self.fc1 = nn.Linear(num_inputs, 32)
        self.fc2 = nn.Linear(32, 32)
        self.lstm = nn.LSTMCell(32, memsize)
        self.critic_linear = nn.Linear(memsize, 1)
        self.actor_linear = nn.Linear(memsize, num_actions)

    def forward(self, inputs):
        inputs, (hx, cx) = inputs
        x = F.elu(self.fc1(inputs))
        x = F.elu(self.fc2(x))
        hx, cx = self.lstm(x, (hx, cx))
        return self.critic_linear(hx), self.actor_linear(hx), (hx, cx)


class ToyEnv:
    def __init__(self, obs_dim, num_actions, seed):
        self.rng = np.random.default_rng(seed)
        self.obs_dim, self.num_actions, self.t = obs_dim, num_actions, 0

    def reset(self):
        self.t = 0
        return self.rng.standard_normal(self.obs_dim).astype(np.float32), {}

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == self.t % self.num_actions else -0.1
        obs = self.rng.standard_normal(self.obs_dim).astype(np.float32)
        return obs, reward, self.t >= 30, False, {}


def ensure_shared_grads(model, shared_model):
    for param, shared_param in zip(model.parameters(), shared_model.parameters()):
        if shared_param.grad is not None:
            return
        shared_param._grad = param.grad


def train(rank, args, shared_model, counter, lock, optimizer=None):
    torch.manual_seed(args.seed + rank)
    env = ToyEnv(args.obs_dim, args.num_actions, seed=args.seed + rank)
    model = ActorCritic(args.obs_dim, args.num_actions)
    if optimizer is None:
        optimizer = optim.Adam(shared_model.parameters(), lr=args.lr)
    model.train()

    state, _ = env.reset()
    state = torch.from_numpy(state)
    done = True
    episode_length = 0

    for update in range(args.num_updates):
        # Sync with the shared model
        model.load_state_dict(shared_model.state_dict())
        if done:
            cx = torch.zeros(1, 16)
            hx = torch.zeros(1, 16)
        else:
            cx = cx.detach()
            hx = hx.detach()

        values, log_probs, rewards, entropies = [], [], [], []
        for step in range(args.num_steps):
            episode_length += 1
            value, logit, (hx, cx) = model((state.unsqueeze(0), (hx, cx)))
            prob = F.softmax(logit, dim=-1)
            log_prob = F.log_softmax(logit, dim=-1)
            entropy = -(log_prob * prob).sum(1, keepdim=True)
            entropies.append(entropy)

            action = prob.multinomial(num_samples=1).detach()
            log_prob = log_prob.gather(1, action)
            state, reward, done, _, info = env.step(action.item())
            done = done or episode_length >= args.max_episode_length
            reward = max(min(reward, 1), -1)

            with lock:
                counter.value += 1
            if done:
                episode_length = 0
                state, _ = env.reset()
            state = torch.from_numpy(state)
            values.append(value)
            log_probs.append(log_prob)
            rewards.append(reward)
            if done:
                break

        R = torch.zeros(1, 1)
        if not done:
            value, _, _ = model((state.unsqueeze(0), (hx, cx)))
            R = value.detach()

        values.append(R)
        policy_loss = 0
        value_loss = 0
        gae = torch.zeros(1, 1)
        for i in reversed(range(len(rewards))):
            R = args.gamma * R + rewards[i]
            advantage = R - values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            # Generalized Advantage Estimation
            delta_t = rewards[i] + args.gamma * values[i + 1] - values[i]
            gae = gae * args.gamma * args.gae_lambda + delta_t
            policy_loss = policy_loss - log_probs[i] * gae.detach() - args.entropy_coef * entropies[i]

        optimizer.zero_grad()
        (policy_loss + args.value_loss_coef * value_loss).backward()  # expect: GG201
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        ensure_shared_grads(model, shared_model)
        optimizer.step()  # also: GG201
    return model


def main():
    args = SimpleNamespace(seed=1, obs_dim=6, num_actions=3, lr=1e-4, gamma=0.99, gae_lambda=1.0,
                           entropy_coef=0.01, value_loss_coef=0.5, max_grad_norm=1e6,
                           num_steps=8, max_episode_length=1000, num_updates=3)
    torch.manual_seed(args.seed)
    shared_model = ActorCritic(args.obs_dim, args.num_actions)
    counter = SimpleNamespace(value=0)
    lock = threading.Lock()
    train(0, args, shared_model, counter, lock)
    print("steps", counter.value)


if __name__ == "__main__":
    main()
