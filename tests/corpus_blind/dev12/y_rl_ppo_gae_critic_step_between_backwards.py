# corpus: PPO-GAE trainer (pg_travel style): combined actor+critic loss is backpropagated with retain_graph, critic_optim.step() runs, then the same loss is backpropagated again for the actor, but the critic weights it saved were changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/reinforcement-learning-kr/pg_travel/issues/22
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class HyperParams:
    gamma = 0.99
    lamda = 0.98
    hidden = 16
    critic_lr = 3e-3
    actor_lr = 3e-4
    batch_size = 8
    clip_param = 0.2
    l2_rate = 1e-3


hp = HyperParams()


class Actor(nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super().__init__()
        self.fc1 = nn.Linear(num_inputs, hp.hidden)
        self.fc2 = nn.Linear(hp.hidden, hp.hidden)
        self.fc3 = nn.Linear(hp.hidden, num_outputs)

    def forward(self, x):
        x = torch.tanh(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        mu = self.fc3(x)
        logstd = torch.zeros_like(mu)
        std = torch.exp(logstd)
        return mu, std, logstd


class Critic(nn.Module):
    def __init__(self, num_inputs):
        super().__init__()
        self.fc1 = nn.Linear(num_inputs, hp.hidden)
        self.fc2 = nn.Linear(hp.hidden, hp.hidden)
        self.fc3 = nn.Linear(hp.hidden, 1)

    def forward(self, x):
        x = torch.tanh(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.fc3(x)


def log_density(x, mu, std, logstd):
    var = std.pow(2)
    log_density = -(x - mu).pow(2) / (2 * var) - 0.5 * np.log(2 * np.pi) - logstd
    return log_density.sum(1, keepdim=True)


def get_gae(rewards, masks, values):
    rewards = torch.Tensor(rewards)
    masks = torch.Tensor(masks)
    returns = torch.zeros_like(rewards)
    advants = torch.zeros_like(rewards)
    running_returns = 0
    previous_value = 0
    running_advants = 0
    for t in reversed(range(0, len(rewards))):
        running_returns = rewards[t] + hp.gamma * running_returns * masks[t]
        running_tderror = rewards[t] + hp.gamma * previous_value * masks[t] - values.data[t]
        running_advants = running_tderror + hp.gamma * hp.lamda * running_advants * masks[t]
        returns[t] = running_returns
        previous_value = values.data[t]
        advants[t] = running_advants
    advants = (advants - advants.mean()) / advants.std()
    return returns, advants


def surrogate_loss(actor, advants, states, old_policy, actions, index):
    mu, std, logstd = actor(torch.Tensor(states))
    new_policy = log_density(actions, mu, std, logstd)
    old_policy = old_policy[index]
    ratio = torch.exp(new_policy - old_policy)
    surrogate = ratio * advants
    return surrogate, ratio


def train_model(actor, critic, memory, actor_optim, critic_optim):
    states = np.vstack([m[0] for m in memory])
    actions = [m[1] for m in memory]
    rewards = [m[2] for m in memory]
    masks = [m[3] for m in memory]
    values = critic(torch.Tensor(states))

    returns, advants = get_gae(rewards, masks, values)
    mu, std, logstd = actor(torch.Tensor(states))
    old_policy = log_density(torch.Tensor(np.array(actions)), mu, std, logstd)
    old_values = critic(torch.Tensor(states))

    criterion = torch.nn.MSELoss()
    n = len(states)
    arr = np.arange(n)

    for epoch in range(2):
        np.random.shuffle(arr)
        for i in range(n // hp.batch_size):
            batch_index = torch.LongTensor(arr[hp.batch_size * i: hp.batch_size * (i + 1)])
            inputs = torch.Tensor(states)[batch_index]
            returns_samples = returns.unsqueeze(1)[batch_index]
            advants_samples = advants.unsqueeze(1)[batch_index]
            actions_samples = torch.Tensor(np.array(actions))[batch_index]
            oldvalue_samples = old_values[batch_index].detach()

            loss, ratio = surrogate_loss(actor, advants_samples, inputs,
                                         old_policy.detach(), actions_samples, batch_index)

            values = critic(inputs)
            clipped_values = oldvalue_samples + torch.clamp(values - oldvalue_samples,
                                                            -hp.clip_param, hp.clip_param)
            critic_loss1 = criterion(clipped_values, returns_samples)
            critic_loss2 = criterion(values, returns_samples)
            critic_loss = torch.max(critic_loss1, critic_loss2).mean()

            clipped_ratio = torch.clamp(ratio, 1.0 - hp.clip_param, 1.0 + hp.clip_param)
            clipped_loss = clipped_ratio * advants_samples
            actor_loss = -torch.min(loss, clipped_loss).mean()

            loss = actor_loss + 0.5 * critic_loss

            critic_optim.zero_grad()
            loss.backward(retain_graph=True)
            critic_optim.step()  # expect: GG111

            actor_optim.zero_grad()
            loss.backward()  # also: GG111
            actor_optim.step()


class ToyEnv:
    """Stand-in for the mujoco env: 3-dim state, 1-dim action."""

    def __init__(self):
        self.t = 0
        self.state = np.zeros(3, dtype=np.float32)

    def reset(self):
        self.t = 0
        self.state = np.random.randn(3).astype(np.float32)
        return self.state

    def step(self, action):
        self.t += 1
        self.state = (0.9 * self.state + 0.1 * float(action[0])).astype(np.float32)
        reward = -float(np.sum(self.state ** 2))
        done = self.t >= 8
        return self.state, reward, done


def get_action(mu, std):
    action = torch.normal(mu, std)
    return action.data.numpy()


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    env = ToyEnv()
    actor = Actor(3, 1)
    critic = Critic(3)
    actor_optim = optim.Adam(actor.parameters(), lr=hp.actor_lr)
    critic_optim = optim.Adam(critic.parameters(), lr=hp.critic_lr, weight_decay=hp.l2_rate)

    for iteration in range(2):
        memory = []
        steps = 0
        while steps < 32:
            state = env.reset()
            done = False
            while not done:
                mu, std, _ = actor(torch.Tensor(state).unsqueeze(0))
                action = get_action(mu, std)[0]
                next_state, reward, done = env.step(action)
                mask = 0 if done else 1
                memory.append([state, action, reward, mask])
                state = next_state
                steps += 1
        actor.train(), critic.train()
        train_model(actor, critic, memory, actor_optim, critic_optim)
        print("iteration", iteration, "done")


if __name__ == "__main__":
    main()
