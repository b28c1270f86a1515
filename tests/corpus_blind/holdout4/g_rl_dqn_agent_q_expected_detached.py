# corpus: Unity Banana DQN agent with soft-updated target network; Agent.train() detaches the local network's Q values before gather, so the MSE loss has no graph back to the parameters
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/QasimWani/RL-Unity/issues/2
import random
from collections import deque, namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

BUFFER_SIZE = 1000
BATCH_SIZE = 16
TAU = 1e-3

Experience = namedtuple("Experience", ["state", "action", "reward", "next_state", "done"])


class DQNetwork(nn.Module):
    def __init__(self, input_features, output_features):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(i, o) for i, o in zip(input_features, output_features)])

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = F.relu(layer(x))
        return self.layers[-1](x)


class ReplayBuffer:
    def __init__(self, buffer_size, batch_size):
        self.memory = deque(maxlen=buffer_size)
        self.batch_size = batch_size

    def add(self, transition):
        self.memory.append(Experience(*transition))

    def sample(self):
        experiences = random.sample(self.memory, k=self.batch_size)
        states = torch.from_numpy(np.vstack([e.state for e in experiences])).float()
        actions = torch.from_numpy(np.vstack([e.action for e in experiences])).long()
        rewards = torch.from_numpy(np.vstack([e.reward for e in experiences])).float()
        next_states = torch.from_numpy(np.vstack([e.next_state for e in experiences])).float()
        dones = torch.from_numpy(np.vstack([e.done for e in experiences]).astype(np.uint8)).float()
        return states, actions, rewards, next_states, dones

    def __len__(self):
        return len(self.memory)


class Agent:
    def __init__(self, state_size=37, action_size=4, gamma=0.99, lr=1e-3, update_every=5):
        self.state_size = state_size
        self.action_size = action_size
        self.input_features = [state_size, 64, 32]
        self.output_features = [64, 32, action_size]
        self.gamma = gamma
        self.qnetwork_local = DQNetwork(self.input_features, self.output_features)
        self.qnetwork_target = DQNetwork(self.input_features, self.output_features)
        self.optimizer = optim.Adam(self.qnetwork_local.parameters(), lr=lr)
        self.memory = ReplayBuffer(BUFFER_SIZE, BATCH_SIZE)
        self.update_every = update_every
        self.target_update_counter = 0

    def step(self, transition):
        self.memory.add(transition)
        self.target_update_counter = (self.target_update_counter + 1) % self.update_every
        if self.target_update_counter == 0 and len(self.memory) > BATCH_SIZE:
            experiences = self.memory.sample()
            self.train(experiences)

    def get_action(self, state, eps=0.0):
        state = torch.from_numpy(state).float().unsqueeze(0)
        self.qnetwork_local.eval()
        with torch.no_grad():
            action_val = self.qnetwork_local(state)
        self.qnetwork_local.train()
        if random.random() > eps:
            return int(np.argmax(action_val.cpu().numpy()))
        return random.choice(np.arange(self.action_size))

    def train(self, experiences):
        states, actions, rewards, next_states, dones = experiences
        Q_targets_next = self.qnetwork_target(next_states).detach().max(1)[0].unsqueeze(1)
        Q_targets = rewards + (self.gamma * Q_targets_next * (1 - dones))
        qexp = self.qnetwork_local(states).detach()  # expect: GG106
        Q_expected = qexp.gather(1, actions)
        loss = F.mse_loss(Q_expected, Q_targets)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG106
        self.optimizer.step()
        self.soft_update(self.qnetwork_local, self.qnetwork_target)

    def soft_update(self, local_model, target_model):
        for target_param, local_param in zip(target_model.parameters(), local_model.parameters()):
            target_param.data.copy_(TAU * local_param.data + (1.0 - TAU) * target_param.data)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    agent = Agent(state_size=8, action_size=4)
    state = np.random.randn(8)
    score = 0.0
    for t in range(40):
        action = agent.get_action(state, eps=0.1)
        next_state, reward, done = np.random.randn(8), float(np.random.rand()), t % 20 == 19
        agent.step((state, action, reward, next_state, done))
        score += reward
        state = next_state
    print(f"score {score:.2f}")


if __name__ == "__main__":
    main()
