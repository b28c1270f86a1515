# corpus: pytorch-a3c worker loop: hx/cx are detached at the start of every rollout, values/log_probs/entropies are kept in lists and summed into policy_loss/value_loss in a reversed loop, and the combined loss is backpropagated once per rollout; this is fine.
# source: https://github.com/ikostrikov/pytorch-a3c/issues/15
import threading
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ActorCritic(nn.Module):
    def __init__(self, num_inputs, num_actions, hidden=32):
        super().__init__()
        self.fc = nn.Linear(num_inputs, hidden)
        self.lstm = nn.LSTMCell(hidden, hidden)
        self.critic_linear = nn.Linear(hidden, 1)
        self.actor_linear = nn.Linear(hidden, num_actions)

    def forward(self, inputs):
        inputs, (hx, cx) = inputs
        x = F.elu(self.fc(inputs))
        hx, cx = self.lstm(x, (hx, cx))
        return self.critic_linear(hx), self.actor_linear(hx), (hx, cx)


class ToyEnv:
    def __init__(self, obs_dim=4):
        self.obs_dim = obs_dim

    def reset(self):
        return np.random.randn(self.obs_dim).astype(np.float32)

    def step(self, action):
        reward = 1.0 if int(np.asarray(action).item()) == 0 else -0.1
        return np.random.randn(self.obs_dim).astype(np.float32), reward, np.random.rand() < 0.05, {}


def ensure_shared_grads(model, shared_model):
    for param, shared_param in zip(model.parameters(), shared_model.parameters()):
        if shared_param.grad is not None:
            return
        shared_param._grad = param.grad


def train(rank, args, shared_model, counter, lock, optimizer=None, n_updates=5):
    torch.manual_seed(args.seed + rank)
    env = ToyEnv()
    model = ActorCritic(env.obs_dim, args.num_actions)
    if optimizer is None:
        optimizer = optim.Adam(shared_model.parameters(), lr=args.lr)
    model.train()
    state = torch.from_numpy(env.reset())
    done = True
    episode_length = 0
    for update in range(n_updates):
        model.load_state_dict(shared_model.state_dict())
        if done:
            cx = torch.zeros(1, 32)
            hx = torch.zeros(1, 32)
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
            state, reward, done, _ = env.step(action.numpy())
            done = done or episode_length >= args.max_episode_length
            reward = max(min(reward, 1), -1)
            with lock:
                counter.value += 1
            if done:
                episode_length = 0
                state = env.reset()
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
            delta_t = rewards[i] + args.gamma * values[i + 1] - values[i]
            gae = gae * args.gamma * args.gae_lambda + delta_t
            policy_loss = policy_loss - log_probs[i] * gae.detach() - args.entropy_coef * entropies[i]
        optimizer.zero_grad()
        (policy_loss + args.value_loss_coef * value_loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        ensure_shared_grads(model, shared_model)
        optimizer.step()
        print(f"update {update} steps {counter.value} policy_loss {policy_loss.item():.3f} value_loss {value_loss.item():.3f}")


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    args = SimpleNamespace(lr=1e-3, gamma=0.99, gae_lambda=1.0, entropy_coef=0.01, value_loss_coef=0.5,
                           max_grad_norm=50, seed=1, num_steps=10, max_episode_length=40, num_actions=3)
    shared_model = ActorCritic(4, args.num_actions)
    counter = SimpleNamespace(value=0)
    train(0, args, shared_model, counter, threading.Lock())


if __name__ == "__main__":
    main()
