# corpus: DDPG agent's to_numpy helper was rewritten from var.cpu().data.numpy() to var.cpu().numpy(), so select_action calls .numpy() on the actor's output, which requires grad.
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/ghliu/pytorch-ddpg/blob/948e715fd31bf07582227298aa22984fef89108f/ddpg.py
from collections import deque
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
from torch.optim import Adam

criterion = nn.MSELoss()


def to_numpy(var):
    return var.cpu().numpy()  # expect: GG110


def to_tensor(ndarray, requires_grad=False, dtype=torch.float32):
    return torch.tensor(np.asarray(ndarray), dtype=dtype, requires_grad=requires_grad)


def soft_update(target, source, tau):
    with torch.no_grad():
        for target_param, param in zip(target.parameters(), source.parameters()):
            target_param.mul_(1.0 - tau).add_(param, alpha=tau)


def hard_update(target, source):
    target.load_state_dict(source.state_dict())


class Actor(nn.Module):
    def __init__(self, nb_states, nb_actions, hidden1=32, hidden2=32):
        super().__init__()
        self.fc1 = nn.Linear(nb_states, hidden1)
        self.fc2 = nn.Linear(hidden1, hidden2)
        self.fc3 = nn.Linear(hidden2, nb_actions)

    def forward(self, x):
        out = torch.relu(self.fc1(x))
        out = torch.relu(self.fc2(out))
        return torch.tanh(self.fc3(out))


class Critic(nn.Module):
    def __init__(self, nb_states, nb_actions, hidden1=32, hidden2=32):
        super().__init__()
        self.fc1 = nn.Linear(nb_states, hidden1)
        self.fc2 = nn.Linear(hidden1 + nb_actions, hidden2)
        self.fc3 = nn.Linear(hidden2, 1)

    def forward(self, xs):
        x, a = xs
        out = torch.relu(self.fc1(x))
        out = torch.relu(self.fc2(torch.cat([out, a], 1)))
        return self.fc3(out)


class SequentialMemory:
    def __init__(self, limit):
        self.buffer = deque(maxlen=limit)

    def append(self, s, a, r, s1, done):
        self.buffer.append((s, a, r, s1, done))

    def sample_and_split(self, batch_size):
        idx = np.random.randint(0, len(self.buffer), size=batch_size)
        s, a, r, s1, d = zip(*[self.buffer[i] for i in idx])
        return (np.stack(s), np.stack(a), np.array(r, dtype=np.float32)[:, None],
                np.stack(s1), np.array(d, dtype=np.float32)[:, None])


class OrnsteinUhlenbeckProcess:
    def __init__(self, size, theta=0.15, mu=0.0, sigma=0.2):
        self.size, self.theta, self.mu, self.sigma = size, theta, mu, sigma
        self.reset_states()

    def sample(self):
        dx = self.theta * (self.mu - self.x_prev) + self.sigma * np.random.normal(size=self.size)
        self.x_prev = self.x_prev + dx
        return self.x_prev

    def reset_states(self):
        self.x_prev = np.zeros(self.size)


class DDPG:
    def __init__(self, nb_states, nb_actions, args):
        self.nb_states, self.nb_actions = nb_states, nb_actions
        self.actor = Actor(nb_states, nb_actions)
        self.actor_target = Actor(nb_states, nb_actions)
        self.actor_optim = Adam(self.actor.parameters(), lr=args.prate)
        self.critic = Critic(nb_states, nb_actions)
        self.critic_target = Critic(nb_states, nb_actions)
        self.critic_optim = Adam(self.critic.parameters(), lr=args.rate)
        hard_update(self.actor_target, self.actor)
        hard_update(self.critic_target, self.critic)

        self.memory = SequentialMemory(limit=args.rmsize)
        self.random_process = OrnsteinUhlenbeckProcess(size=nb_actions)
        self.batch_size, self.tau, self.discount = args.bsize, args.tau, args.discount
        self.depsilon = 1.0 / args.epsilon
        self.epsilon = 1.0
        self.s_t = None
        self.a_t = None
        self.is_training = True

    def update_policy(self):
        state_batch, action_batch, reward_batch, next_state_batch, terminal_batch = \
            self.memory.sample_and_split(self.batch_size)

        with torch.no_grad():
            next_q_values = self.critic_target([
                to_tensor(next_state_batch),
                self.actor_target(to_tensor(next_state_batch)),
            ])
        target_q_batch = to_tensor(reward_batch) + \
            self.discount * to_tensor(1.0 - terminal_batch) * next_q_values

        self.critic.zero_grad()
        q_batch = self.critic([to_tensor(state_batch), to_tensor(action_batch)])
        value_loss = criterion(q_batch, target_q_batch)
        value_loss.backward()
        self.critic_optim.step()

        self.actor.zero_grad()
        policy_loss = -self.critic([to_tensor(state_batch), self.actor(to_tensor(state_batch))])
        policy_loss = policy_loss.mean()
        policy_loss.backward()
        self.actor_optim.step()

        soft_update(self.actor_target, self.actor, self.tau)
        soft_update(self.critic_target, self.critic, self.tau)

    def observe(self, r_t, s_t1, done):
        if self.is_training:
            self.memory.append(self.s_t, self.a_t, r_t, s_t1, done)
            self.s_t = s_t1

    def random_action(self):
        action = np.random.uniform(-1., 1., self.nb_actions)
        self.a_t = action
        return action

    def select_action(self, s_t, decay_epsilon=True):
        action = to_numpy(self.actor(to_tensor(np.array([s_t])))).squeeze(0)  # also: GG110
        action += self.is_training * max(self.epsilon, 0) * self.random_process.sample()
        action = np.clip(action, -1., 1.)
        if decay_epsilon:
            self.epsilon -= self.depsilon
        self.a_t = action
        return action

    def reset(self, obs):
        self.s_t = obs
        self.random_process.reset_states()


def train(agent, num_iterations, warmup, nb_states):
    observation = None
    for step in range(num_iterations):
        if observation is None:
            observation = np.random.randn(nb_states).astype(np.float32)
            agent.reset(observation)
        if step <= warmup:
            action = agent.random_action()
        else:
            action = agent.select_action(observation)
        observation2 = np.random.randn(nb_states).astype(np.float32)
        reward = -float(np.square(action).sum())
        done = (step + 1) % 25 == 0
        agent.observe(reward, observation2, done)
        if step > warmup:
            agent.update_policy()
        observation = None if done else observation2


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    args = SimpleNamespace(prate=1e-4, rate=1e-3, rmsize=1000, bsize=16, tau=0.01,
                           discount=0.99, epsilon=5000)
    nb_states, nb_actions = 3, 1
    agent = DDPG(nb_states, nb_actions, args)
    train(agent, num_iterations=40, warmup=20, nb_states=nb_states)
    print("epsilon", agent.epsilon)


if __name__ == "__main__":
    main()
