# corpus: DQN agent with prioritized replay (learn_per) multiplies the squared TD error by weights.mean() instead of taking the mean of the weighted errors, so loss stays [batch, 1] when backward() is called
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/BY571/DQN-Atari-Agents/issues/5
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.utils import clip_grad_norm_


class QNetwork(nn.Module):
    def __init__(self, state_size, action_size, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_size, hidden), nn.ReLU(), nn.Linear(hidden, action_size))

    def forward(self, x):
        return self.net(x)


class PrioritizedReplay:
    def __init__(self, capacity, alpha=0.6, beta=0.4):
        self.capacity, self.alpha, self.beta = capacity, alpha, beta
        self.buffer, self.priorities, self.pos = [], np.zeros(capacity, dtype=np.float32), 0

    def add(self, *transition):
        max_prio = self.priorities.max() if self.buffer else 1.0
        if len(self.buffer) < self.capacity:
            self.buffer.append(transition)
        else:
            self.buffer[self.pos] = transition
        self.priorities[self.pos] = max_prio
        self.pos = (self.pos + 1) % self.capacity

    def sample(self, batch_size):
        prios = self.priorities[:len(self.buffer)] ** self.alpha
        probs = prios / prios.sum()
        idx = np.random.choice(len(self.buffer), batch_size, p=probs)
        weights = (len(self.buffer) * probs[idx]) ** (-self.beta)
        states, actions, rewards, next_states, dones = zip(*[self.buffer[i] for i in idx])
        return states, actions, rewards, next_states, dones, idx, weights / weights.max()

    def update_priorities(self, idx, prios):
        for i, p in zip(idx, prios):
            self.priorities[i] = float(p) + 1e-5


class DQN_Agent:
    def __init__(self, state_size=4, action_size=2, batch_size=8, gamma=0.99, tau=1e-2, n_step=1):
        self.qnetwork_local, self.qnetwork_target = QNetwork(state_size, action_size), QNetwork(state_size, action_size)
        self.optimizer = optim.Adam(self.qnetwork_local.parameters(), lr=1e-3)
        self.memory = PrioritizedReplay(100)
        self.batch_size, self.GAMMA, self.TAU, self.n_step, self.action_size = batch_size, gamma, tau, n_step, action_size

    def act(self, state, eps=0.1):
        if random.random() < eps:
            return random.randrange(self.action_size)
        with torch.no_grad():
            return int(self.qnetwork_local(torch.from_numpy(state).float().unsqueeze(0)).argmax(1).item())

    def step(self, state, action, reward, next_state, done):
        self.memory.add(state, action, reward, next_state, done)
        if len(self.memory.buffer) > self.batch_size:
            return self.learn_per(self.memory.sample(self.batch_size))

    def learn_per(self, experiences):
        self.optimizer.zero_grad()
        states, actions, rewards, next_states, dones, idx, weights = experiences
        states, next_states = torch.FloatTensor(np.float32(states)), torch.FloatTensor(np.float32(next_states))
        actions = torch.LongTensor(actions).unsqueeze(1)
        rewards, dones = torch.FloatTensor(rewards).unsqueeze(1), torch.FloatTensor(dones).unsqueeze(1)
        weights = torch.FloatTensor(weights).unsqueeze(1)
        Q_targets_next = self.qnetwork_target(next_states).detach().max(1)[0].unsqueeze(1)
        Q_targets = rewards + (self.GAMMA ** self.n_step * Q_targets_next * (1 - dones))
        Q_expected = self.qnetwork_local(states).gather(1, actions)
        td_error = Q_targets - Q_expected
        loss = td_error.pow(2) * weights.mean()  # expect: GG109
        loss.backward()  # also: GG109
        clip_grad_norm_(self.qnetwork_local.parameters(), 1)
        self.optimizer.step()
        for t_param, l_param in zip(self.qnetwork_target.parameters(), self.qnetwork_local.parameters()):
            t_param.data.copy_(self.TAU * l_param.data + (1.0 - self.TAU) * t_param.data)
        self.memory.update_priorities(idx, abs(td_error.data.cpu().numpy()))
        return loss.detach().cpu().numpy()


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    agent = DQN_Agent()
    state = np.random.randn(4).astype(np.float32)
    for frame in range(20):
        action = agent.act(state)
        next_state, reward, done = np.random.randn(4).astype(np.float32), float(action), frame % 10 == 9
        agent.step(state, action, reward, next_state, done)
        state = next_state
