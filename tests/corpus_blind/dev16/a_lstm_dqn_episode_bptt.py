# corpus: LSTM Deep-Q agent on a sine-wave road replays a stored episode step by step; the recurrent model keeps its (h, c) state across learn() steps without detaching, so the second step's backward reaches the first step's freed graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://discuss.pytorch.org/t/backpropagation-through-time-on-lstm-for-reinforcement-learning/31023
import math
import random
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class SinRoadEnv:
    """Car on a road shaped like a sine wave; actions: 0 up, 1 down, 2 stay."""

    def __init__(self, length=12):
        self.length = length
        self.t = 0
        self.pos = 0.0

    def reset(self):
        self.t = 0
        self.pos = 0.0
        return self._obs()

    def _obs(self):
        return torch.tensor([[[self.pos, self.t / self.length]]], dtype=torch.float32)

    def step(self, action):
        self.pos += {0: 0.1, 1: -0.1, 2: 0.0}[action]
        self.pos = max(-1.0, min(1.0, self.pos))
        self.t += 1
        middle = math.sin(2 * math.pi * self.t / self.length) * 0.5
        dist = abs(self.pos - middle)
        if abs(self.pos) >= 1.0:
            reward = -3.0
        elif dist < 0.1:
            reward = 1.0
        else:
            reward = -1.0
        return self._obs(), reward, self.t >= self.length


class EpisodeMemory:
    def __init__(self, capacity=20):
        self.memory = deque(maxlen=capacity)
        self.current = []

    def push(self, state, next_state, action, reward):
        self.current.append((state, next_state, torch.tensor([action]), torch.tensor([reward])))

    def end_episode(self):
        self.memory.append(self.current)
        self.current = []

    def sample_episode(self):
        return random.choice(self.memory)


class LSTMNetwork(nn.Module):
    def __init__(self, input_size=2, hidden_size=16, n_actions=3):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, n_actions)
        self.hidden = None

    def reset_hidden(self):
        self.hidden = None

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)  # expect: GG104
        return self.out(lstm_out[:, -1])


class LSTMAgent:
    def __init__(self, gamma=0.9, lr=1e-3):
        self.model = LSTMNetwork()
        self.target_model = LSTMNetwork()
        self.target_model.load_state_dict(self.model.state_dict())
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.memory = EpisodeMemory()
        self.gamma = gamma
        self.epsilon = 0.5

    def select_action(self, state):
        with torch.no_grad():
            q = self.target_model(state)
        if random.random() < self.epsilon:
            return random.randrange(3)
        return int(q.argmax(1).item())

    def learn(self):
        # Defining the counter
        i = 0
        # Getting an episode from the memory
        episode = self.memory.sample_episode()
        graph_end = len(episode) - 1
        self.model.reset_hidden()
        self.target_model.reset_hidden()
        # Loop to perform backprop through time on the episode selected from the memory
        while i < graph_end:
            state, next_state, action, reward = episode[i]
            outputs = self.model(state).gather(1, action.unsqueeze(1)).squeeze(1)
            with torch.no_grad():
                next_state_values = self.target_model(next_state).max(1)[0]
            target = reward + self.gamma * next_state_values
            loss = F.smooth_l1_loss(outputs, target)
            self.optimizer.zero_grad()
            loss.backward()  # also: GG104
            self.optimizer.step()
            i += 1
        self.target_model.load_state_dict(self.model.state_dict())


def run(episodes=3):
    env = SinRoadEnv()
    agent = LSTMAgent()
    for _ in range(episodes):
        state = env.reset()
        agent.target_model.reset_hidden()
        done = False
        while not done:
            action = agent.select_action(state)
            next_state, reward, done = env.step(action)
            agent.memory.push(state, next_state, action, reward)
            state = next_state
        agent.memory.end_episode()
        agent.learn()


def main():
    torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
    run()


if __name__ == "__main__":
    main()
