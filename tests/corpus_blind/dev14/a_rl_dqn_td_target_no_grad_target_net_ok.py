# corpus: DQN agent (Hands-on-RL DQN shape) with a separate target network whose TD target is computed under torch.no_grad(), a replay buffer returning tuples, zero_grad/backward/step once per update and a periodic target sync; the loss is logged with .item(); correct
# source: https://github.com/boyu-ai/Hands-on-RL/issues/112
import collections
import random

import numpy as np
import torch
import torch.nn.functional as F


class ReplayBuffer:
    def __init__(self, capacity):
        self.buffer = collections.deque(maxlen=capacity)

    def add(self, state, action, reward, next_state, done):
        self.buffer.append((state, action, reward, next_state, done))

    def sample(self, batch_size):
        transitions = random.sample(self.buffer, batch_size)
        state, action, reward, next_state, done = zip(*transitions)
        return np.array(state), action, reward, np.array(next_state), done

    def size(self):
        return len(self.buffer)


class Qnet(torch.nn.Module):
    def __init__(self, state_dim, hidden_dim, action_dim):
        super().__init__()
        self.fc1 = torch.nn.Linear(state_dim, hidden_dim)
        self.fc2 = torch.nn.Linear(hidden_dim, action_dim)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class DQN:
    def __init__(self, state_dim, hidden_dim, action_dim, learning_rate, gamma, epsilon, target_update):
        self.action_dim = action_dim
        self.q_net = Qnet(state_dim, hidden_dim, action_dim)
        self.target_q_net = Qnet(state_dim, hidden_dim, action_dim)
        self.target_q_net.load_state_dict(self.q_net.state_dict())
        self.optimizer = torch.optim.Adam(self.q_net.parameters(), lr=learning_rate)
        self.gamma, self.epsilon, self.target_update = gamma, epsilon, target_update
        self.count = 0

    def take_action(self, state):
        if np.random.random() < self.epsilon:
            return np.random.randint(self.action_dim)
        with torch.no_grad():
            return self.q_net(torch.tensor(np.array([state]), dtype=torch.float)).argmax().item()

    def update(self, transition_dict):
        states = torch.tensor(transition_dict['states'], dtype=torch.float)
        actions = torch.tensor(transition_dict['actions']).view(-1, 1)
        rewards = torch.tensor(transition_dict['rewards'], dtype=torch.float).view(-1, 1)
        next_states = torch.tensor(transition_dict['next_states'], dtype=torch.float)
        dones = torch.tensor(transition_dict['dones'], dtype=torch.float).view(-1, 1)

        q_values = self.q_net(states).gather(1, actions)
        with torch.no_grad():
            max_next_q_values = self.target_q_net(next_states).max(1)[0].view(-1, 1)
            q_targets = rewards + self.gamma * max_next_q_values * (1 - dones)
        dqn_loss = torch.mean(F.mse_loss(q_values, q_targets))
        self.optimizer.zero_grad()
        dqn_loss.backward()
        self.optimizer.step()

        if self.count % self.target_update == 0:
            self.target_q_net.load_state_dict(self.q_net.state_dict())
        self.count += 1
        return dqn_loss.item()


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    agent = DQN(4, 32, 2, learning_rate=2e-3, gamma=0.98, epsilon=0.1, target_update=10)
    buffer = ReplayBuffer(1000)
    for episode in range(3):
        state, losses = np.random.randn(4).astype(np.float32), []
        for t in range(40):
            action = agent.take_action(state)
            next_state = np.random.randn(4).astype(np.float32)
            reward, done = float(action == int(state[0] > 0)), t == 39
            buffer.add(state, action, reward, next_state, done)
            state = next_state
            if buffer.size() > 32:
                b_s, b_a, b_r, b_ns, b_d = buffer.sample(32)
                losses.append(agent.update({'states': b_s, 'actions': b_a, 'next_states': b_ns,
                                            'rewards': b_r, 'dones': b_d}))
        print("episode", episode, "mean loss", sum(losses) / max(len(losses), 1))


if __name__ == "__main__":
    main()
