# corpus: A3C worker with an LSTMCell policy "modernises" Variable(hx.data) into bare hx.detach()/cx.detach() statements whose results are thrown away, so the LSTM state keeps the previous rollout's freed graph and the next update's backward fails.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/greydanus/baby-a3c/blob/045544b8fcc07a2ad5c737ea8c7e00c4de455a61/baby-a3c.py
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def discount(x, gamma):  # same as lfilter([1], [1, -gamma], x[::-1])[::-1]
    out = np.zeros(len(x), dtype=np.float64)
    running = 0.0
    for t in reversed(range(len(x))):
        running = x[t] + gamma * running
        out[t] = running
    return out


class NNPolicy(nn.Module):  # an actor-critic neural network
    def __init__(self, obs_dim, num_actions, memsize=16):
        super().__init__()
        self.enc1 = nn.Linear(obs_dim, 32)
        self.enc2 = nn.Linear(32, 32)
        self.lstm = nn.LSTMCell(32, memsize)
        self.val_func, self.pol_func = nn.Linear(memsize, 1), nn.Linear(memsize, num_actions)

    def forward(self, inputs):
        inputs, (hx, cx) = inputs
        x = F.elu(self.enc1(inputs))
        x = F.elu(self.enc2(x))
        hx, cx = self.lstm(x, (hx, cx))
        return self.val_func(hx), self.pol_func(hx), (hx, cx)


class ToyEnv:
    """Stands in for the Atari env: random observations, episodes of 40 steps."""

    def __init__(self, obs_dim, num_actions, seed):
        self.rng = np.random.default_rng(seed)
        self.obs_dim, self.num_actions, self.t = obs_dim, num_actions, 0

    def reset(self):
        self.t = 0
        return self.rng.standard_normal(self.obs_dim).astype(np.float32)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == self.t % self.num_actions else 0.0
        obs = self.rng.standard_normal(self.obs_dim).astype(np.float32)
        return obs, reward, self.t >= 40, {}


def cost_func(args, values, logps, actions, rewards):
    np_values = values.view(-1).detach().numpy()

    # generalized advantage estimation (a policy gradient method)
    delta_t = np.asarray(rewards) + args.gamma * np_values[1:] - np_values[:-1]
    gae = discount(delta_t, args.gamma * args.tau)
    logpys = logps.gather(1, actions.view(-1, 1))
    policy_loss = -(logpys.view(-1) * torch.tensor(gae.copy(), dtype=torch.float32)).sum()

    # l2 loss over value estimator
    rewards[-1] += args.gamma * np_values[-1]
    discounted_r = torch.tensor(discount(np.asarray(rewards), args.gamma).copy(), dtype=torch.float32)
    value_loss = .5 * (discounted_r - values[:-1, 0]).pow(2).sum()

    entropy_loss = -(-logps * torch.exp(logps)).sum()  # encourage lower entropy
    return policy_loss + 0.5 * value_loss + 0.01 * entropy_loss


def train(rank, args, shared_model, shared_optimizer, info):
    env = ToyEnv(args.obs_dim, args.num_actions, seed=args.seed + rank)
    torch.manual_seed(args.seed + rank)
    model = NNPolicy(args.obs_dim, args.num_actions)  # a local (unshared) model
    state = torch.tensor(env.reset())
    episode_length, epr, eploss, done = 0, 0, 0, True

    for update in range(args.updates):
        model.load_state_dict(shared_model.state_dict())  # sync with shared model
        if done:
            cx = torch.zeros(1, 16)  # lstm memory
            hx = torch.zeros(1, 16)  # lstm activation
        else:
            cx.detach()  # expect: GG112
            hx.detach()  # also: GG112
        values, logps, actions, rewards = [], [], [], []

        for step in range(args.lstm_steps):
            episode_length += 1
            value, logit, (hx, cx) = model((state.view(1, -1), (hx, cx)))
            logp = F.log_softmax(logit, dim=-1)

            action = torch.exp(logp).multinomial(num_samples=1).detach()[0]
            state, reward, done, _ = env.step(action.item())
            state = torch.tensor(state)
            reward = np.clip(reward, -1, 1)
            epr += reward
            done = done or episode_length >= 1e4

            if done:
                info['episodes'] += 1
                episode_length, epr = 0, 0
                state = torch.tensor(env.reset())

            values.append(value)
            logps.append(logp)
            actions.append(action)
            rewards.append(reward)
            if done:
                break

        next_value = torch.zeros(1, 1) if done else model((state.unsqueeze(0), (hx, cx)))[0]
        values.append(next_value.detach())

        loss = cost_func(args, torch.cat(values), torch.cat(logps), torch.cat(actions), rewards)
        eploss += loss.item()
        shared_optimizer.zero_grad()
        loss.backward()  # also: GG112
        torch.nn.utils.clip_grad_norm_(model.parameters(), 40)

        for param, shared_param in zip(model.parameters(), shared_model.parameters()):
            shared_param._grad = param.grad  # sync gradients with shared model
        shared_optimizer.step()
        info['updates'] += 1
    return eploss


def main():
    args = SimpleNamespace(obs_dim=8, num_actions=3, lstm_steps=10, updates=4, lr=1e-4,
                           gamma=0.99, tau=1.0, seed=0)
    torch.manual_seed(args.seed)
    shared_model = NNPolicy(args.obs_dim, args.num_actions)
    shared_optimizer = torch.optim.Adam(shared_model.parameters(), lr=args.lr)
    info = {'episodes': 0, 'updates': 0}
    eploss = train(0, args, shared_model, shared_optimizer, info)
    print(f"updates {info['updates']}, loss {eploss:.3f}")


if __name__ == "__main__":
    main()
