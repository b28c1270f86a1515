# corpus: PPO update of a VAIL agent backpropagates one combined actor+critic loss twice and steps the critic optimizer between the two passes, so the second backward meets critic weights changed in place.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/reinforcement-learning-kr/lets-do-irl/issues/9
import math
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn


class Actor(nn.Module):
    def __init__(self, num_inputs, num_outputs, hidden_size=16):
        super().__init__()
        self.fc1 = nn.Linear(num_inputs, hidden_size)
        self.fc2 = nn.Linear(hidden_size, hidden_size)
        self.fc3 = nn.Linear(hidden_size, num_outputs)

    def forward(self, x):
        x = torch.tanh(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        mu = self.fc3(x)
        logstd = torch.zeros_like(mu)
        std = torch.exp(logstd)
        return mu, std


class Critic(nn.Module):
    def __init__(self, num_inputs, hidden_size=16):
        super().__init__()
        self.fc1 = nn.Linear(num_inputs, hidden_size)
        self.fc2 = nn.Linear(hidden_size, hidden_size)
        self.fc3 = nn.Linear(hidden_size, 1)

    def forward(self, x):
        x = torch.tanh(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.fc3(x)


def log_prob_density(x, mu, std):
    log_prob = -(x - mu).pow(2) / (2 * std.pow(2)) - 0.5 * math.log(2 * math.pi)
    return log_prob.sum(1, keepdim=True)


def get_entropy(mu, std):
    return torch.distributions.Normal(mu, std).entropy().mean()


def get_gae(rewards, masks, values, args):
    rewards = torch.Tensor(rewards)
    masks = torch.Tensor(masks)
    returns = torch.zeros_like(rewards)
    advants = torch.zeros_like(rewards)

    running_returns = 0
    previous_value = 0
    running_advants = 0
    for t in reversed(range(0, len(rewards))):
        running_returns = rewards[t] + (args.gamma * running_returns * masks[t])
        returns[t] = running_returns
        running_delta = rewards[t] + (args.gamma * previous_value * masks[t]) - values.data[t]
        previous_value = values.data[t]
        running_advants = running_delta + (args.gamma * args.lamda * running_advants * masks[t])
        advants[t] = running_advants

    advants = (advants - advants.mean()) / advants.std()
    return returns, advants


def surrogate_loss(actor, advants, states, old_policy, actions, batch_index):
    mu, std = actor(states)
    new_policy = log_prob_density(actions, mu, std)
    old_policy = old_policy[batch_index]
    ratio = torch.exp(new_policy - old_policy)
    surrogate = ratio * advants
    entropy = get_entropy(mu, std)
    return surrogate, ratio, entropy


def train_ppo(actor, critic, memory, actor_optim, critic_optim, args):
    states = np.vstack([m[0] for m in memory])
    actions = np.vstack([m[1] for m in memory])
    rewards = [m[2] for m in memory]
    masks = [m[3] for m in memory]

    old_values = critic(torch.Tensor(states))
    returns, advants = get_gae(rewards, masks, old_values, args)

    mu, std = actor(torch.Tensor(states))
    old_policy = log_prob_density(torch.Tensor(actions), mu, std)

    criterion = torch.nn.MSELoss()
    n = len(states)
    arr = np.arange(n)

    for _ in range(args.ppo_update_num):
        np.random.shuffle(arr)
        for i in range(n // args.batch_size):
            batch_index = torch.LongTensor(arr[args.batch_size * i: args.batch_size * (i + 1)])

            inputs = torch.Tensor(states)[batch_index]
            actions_samples = torch.Tensor(actions)[batch_index]
            returns_samples = returns.unsqueeze(1)[batch_index]
            advants_samples = advants.unsqueeze(1)[batch_index]
            oldvalue_samples = old_values[batch_index].detach()

            values = critic(inputs)
            clipped_values = oldvalue_samples + torch.clamp(values - oldvalue_samples,
                                                            -args.clip_param, args.clip_param)
            critic_loss1 = criterion(clipped_values, returns_samples)
            critic_loss2 = criterion(values, returns_samples)
            critic_loss = torch.max(critic_loss1, critic_loss2).mean()

            loss, ratio, entropy = surrogate_loss(actor, advants_samples, inputs,
                                                  old_policy.detach(), actions_samples, batch_index)
            clipped_ratio = torch.clamp(ratio, 1.0 - args.clip_param, 1.0 + args.clip_param)
            clipped_loss = clipped_ratio * advants_samples
            actor_loss = -torch.min(loss, clipped_loss).mean()

            loss = actor_loss + 0.5 * critic_loss - 0.001 * entropy

            critic_optim.zero_grad()
            loss.backward(retain_graph=True)
            critic_optim.step()  # expect: GG111

            actor_optim.zero_grad()
            loss.backward()  # also: GG111
            actor_optim.step()


def collect_memory(actor, num_inputs, num_steps):
    memory = []
    state = np.random.randn(num_inputs).astype(np.float32)
    for step in range(num_steps):
        with torch.no_grad():
            mu, std = actor(torch.Tensor(state).unsqueeze(0))
            action = torch.normal(mu, std)[0].numpy()
        reward = float(-np.square(action).sum())
        mask = 0.0 if (step + 1) % 8 == 0 else 1.0
        memory.append([state, action, reward, mask])
        state = np.random.randn(num_inputs).astype(np.float32)
    return memory


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    args = SimpleNamespace(gamma=0.99, lamda=0.98, clip_param=0.2, ppo_update_num=2, batch_size=8)
    num_inputs, num_actions = 5, 2

    actor = Actor(num_inputs, num_actions)
    critic = Critic(num_inputs)
    actor_optim = torch.optim.Adam(actor.parameters(), lr=3e-4)
    critic_optim = torch.optim.Adam(critic.parameters(), lr=3e-4, weight_decay=1e-3)

    memory = collect_memory(actor, num_inputs, num_steps=32)
    train_ppo(actor, critic, memory, actor_optim, critic_optim, args)
    print("ppo update done")


if __name__ == "__main__":
    main()
