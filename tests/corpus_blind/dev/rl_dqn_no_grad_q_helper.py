# corpus: DQN agent's q_values() helper is decorated with @torch.no_grad() for acting and is reused to build the TD loss
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/pytorch/pytorch/issues/34535
import random
from collections import deque, namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Transition = namedtuple("Transition", ("state", "action", "reward", "next_state", "done"))


class ReplayBuffer:
    def __init__(self, capacity):
        self.memory = deque(maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        batch = Transition(*zip(*random.sample(self.memory, batch_size)))
        return (torch.stack(batch.state), torch.tensor(batch.action).unsqueeze(1),
                torch.tensor(batch.reward), torch.stack(batch.next_state),
                torch.tensor(batch.done, dtype=torch.float32))

    def __len__(self):
        return len(self.memory)


class QNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, n_actions))

    def forward(self, x):
        return self.layers(x)


class DQNAgent:
    def __init__(self, obs_dim, n_actions, gamma=0.99, epsilon=0.1):
        self.q_net = QNetwork(obs_dim, n_actions)
        self.target_net = QNetwork(obs_dim, n_actions)
        self.target_net.load_state_dict(self.q_net.state_dict())
        self.optimizer = torch.optim.Adam(self.q_net.parameters(), lr=1e-3)
        self.buffer = ReplayBuffer(1000)
        self.gamma = gamma
        self.epsilon = epsilon
        self.n_actions = n_actions

    @torch.no_grad()
    def q_values(self, states):
        return self.q_net(states)

    def act(self, state):
        if random.random() < self.epsilon:
            return random.randrange(self.n_actions)
        return int(self.q_values(state.unsqueeze(0)).argmax(1).item())

    def learn(self, batch_size=32):
        states, actions, rewards, next_states, dones = self.buffer.sample(batch_size)
        q = self.q_values(states).gather(1, actions).squeeze(1)  # expect: GG106
        with torch.no_grad():
            next_q = self.target_net(next_states).max(1)[0]
            target = rewards + self.gamma * next_q * (1 - dones)
        loss = F.smooth_l1_loss(q, target)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG106
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    random.seed(0)
    agent = DQNAgent(obs_dim=4, n_actions=2)
    state = torch.randn(4)
    for step in range(64):
        action = agent.act(state)
        next_state = torch.randn(4)
        done = step % 16 == 15
        agent.buffer.push(state, action, float(action), next_state, done)
        state = next_state
        if len(agent.buffer) >= 32:
            agent.learn()


if __name__ == "__main__":
    main()
