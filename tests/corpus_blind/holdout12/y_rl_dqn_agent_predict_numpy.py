# corpus: PARL-style DQN agent: Algorithm.predict() runs the Q-network without torch.no_grad(), and Agent.predict() converts the Q-values with .cpu().numpy() while they still require grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/PaddlePaddle/PARL/pull/694
import copy
import random
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class AtariModel(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim, 32)
        self.fc2 = nn.Linear(32, act_dim)

    def forward(self, obs):
        return self.fc2(F.relu(self.fc1(obs)))


class DQN:
    def __init__(self, model, gamma=0.99, lr=1e-3):
        self.model = model
        self.target_model = copy.deepcopy(model)
        self.gamma = gamma
        self.optimizer = optim.Adam(self.model.parameters(), lr=lr)

    def predict(self, obs):
        return self.model(obs)

    def learn(self, obs, action, reward, next_obs, terminal):
        pred_value = self.model(obs).gather(1, action)
        with torch.no_grad():
            max_v = self.target_model(next_obs).max(1, keepdim=True)[0]
            target = reward + (1 - terminal) * self.gamma * max_v
        self.optimizer.zero_grad()
        loss = F.mse_loss(pred_value, target)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def sync_target(self):
        self.target_model.load_state_dict(self.model.state_dict())


class AtariAgent:
    def __init__(self, algorithm, act_dim):
        self.alg = algorithm
        self.act_dim = act_dim
        self.exploration = 0.3
        self.global_step = 0
        self.update_target_steps = 20
        self.device = torch.device("cpu")

    def sample(self, obs):
        if np.random.random() < self.exploration:
            act = np.random.randint(self.act_dim)
        else:
            act = self.predict(obs)
        self.exploration = max(0.1, self.exploration - 1e-3)
        return act

    def predict(self, obs):
        if obs.ndim == 1:
            obs = np.expand_dims(obs, axis=0)
        obs = torch.tensor(obs, dtype=torch.float, device=self.device)
        pred_q = self.alg.predict(obs).cpu().numpy().squeeze()  # expect: GG110
        act = int(pred_q.argmax())
        return act

    def learn(self, obs, act, reward, next_obs, terminal):
        if self.global_step % self.update_target_steps == 0:
            self.alg.sync_target()
        self.global_step += 1
        obs = torch.tensor(obs, dtype=torch.float)
        next_obs = torch.tensor(next_obs, dtype=torch.float)
        act = torch.tensor(np.expand_dims(act, -1), dtype=torch.long)
        reward = torch.tensor(np.expand_dims(np.clip(reward, -1, 1), -1), dtype=torch.float)
        terminal = torch.tensor(np.expand_dims(terminal, -1), dtype=torch.float)
        return self.alg.learn(obs, act, reward, next_obs, terminal)


class ReplayMemory:
    def __init__(self, max_size):
        self.buffer = deque(maxlen=max_size)

    def append(self, exp):
        self.buffer.append(exp)

    def sample_batch(self, batch_size):
        batch = random.sample(self.buffer, batch_size)
        obs, act, reward, next_obs, terminal = zip(*batch)
        return (np.array(obs, dtype=np.float32), np.array(act), np.array(reward, dtype=np.float32),
                np.array(next_obs, dtype=np.float32), np.array(terminal, dtype=np.float32))

    def __len__(self):
        return len(self.buffer)


class ToyEnv:
    def reset(self):
        self.t = 0
        self.s = np.random.randn(4).astype(np.float32)
        return self.s

    def step(self, a):
        self.t += 1
        self.s = (0.95 * self.s + 0.05 * (a - 0.5)).astype(np.float32)
        return self.s, float(-abs(self.s[0])), self.t >= 10


def run_episode(env, agent, rpm, batch_size=16):
    obs = env.reset()
    total_reward, done = 0.0, False
    while not done:
        action = agent.sample(obs)
        next_obs, reward, done = env.step(action)
        rpm.append((obs, action, reward, next_obs, float(done)))
        if len(rpm) > batch_size:
            agent.learn(*rpm.sample_batch(batch_size))
        total_reward += reward
        obs = next_obs
    return total_reward


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    env = ToyEnv()
    agent = AtariAgent(DQN(AtariModel(4, 2)), act_dim=2)
    rpm = ReplayMemory(500)
    for episode in range(5):
        print("episode", episode, "reward", run_episode(env, agent, rpm))


if __name__ == "__main__":
    main()
