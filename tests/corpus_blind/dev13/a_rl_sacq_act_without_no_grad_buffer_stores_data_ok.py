# corpus: SAC-X style actor/learner split (pySACQ shape): act() runs the actor outside torch.no_grad() while collecting trajectories into the replay buffer, but Actor.predict() returns .cpu().data for the action and log-prob, so the stored Steps carry no graph; learn() recomputes everything with a fresh forward; correct
# source: https://github.com/hu-po/pySACQ/issues/2
import random
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn

Step = namedtuple("Step", ["state", "action", "log_prob", "reward"])


class Actor(nn.Module):
    def __init__(self, state_dim=4, num_intentions=2, num_actions=3, hidden=16):
        super().__init__()
        self.base = nn.Sequential(nn.Linear(state_dim, hidden), nn.ELU())
        self.heads = nn.ModuleList([nn.Linear(hidden, num_actions) for _ in range(num_intentions)])

    def forward(self, x, intention, log_prob=False):
        probs = torch.softmax(self.heads[intention](self.base(torch.as_tensor(x, dtype=torch.float32))), dim=-1)
        dist = torch.distributions.Categorical(probs)
        action = dist.sample()
        return (action, dist.log_prob(action)) if log_prob else action

    def predict(self, x, intention, log_prob=False):
        if log_prob:
            action, lp = self.forward(x, intention, log_prob=True)
            return action.cpu().data, lp.cpu().data
        return self.forward(x, intention).cpu().data


class Task:
    def __init__(self, num_tasks=2):
        self.num_tasks, self.current_task = num_tasks, 0

    def sample(self):
        self.current_task = random.randrange(self.num_tasks)

    def reward(self, obs, action):
        return [float(action == 0), float(obs[0] > 0)]


class ToyEnv:
    def reset(self):
        self.t, self.s = 0, np.random.randn(4).astype(np.float32)
        return self.s

    def step(self, action):
        self.t += 1
        self.s = (0.9 * self.s + 0.1 * np.random.randn(4)).astype(np.float32)
        return self.s, 0.0, self.t >= 15, {}


def act(actor, env, task, B, num_trajectories=3, task_period=5):
    for _ in range(num_trajectories):
        trajectory, obs, done, num_steps = [], env.reset(), False, 0
        while not done:
            if num_steps % task_period == 0:
                task.sample()
            actor.eval()
            action, log_prob = actor.predict(np.expand_dims(obs, axis=0), task.current_task, log_prob=True)
            obs, _, done, _ = env.step(int(action[0]))
            trajectory.append(Step(obs, action[0], log_prob[0], task.reward(obs, int(action[0]))))
            num_steps += 1
        B.append(trajectory)


def learn(actor, optimizer, task, B, num_learning_iterations=3, gamma=0.95):
    actor.train()
    for _ in range(num_learning_iterations):
        trajectory = random.choice(B)
        states = torch.tensor(np.stack([s.state for s in trajectory]))
        actions = torch.stack([s.action for s in trajectory])
        rewards = torch.tensor([s.reward for s in trajectory])
        loss = 0.0
        for intention in range(task.num_tasks):
            probs = torch.softmax(actor.heads[intention](actor.base(states)), dim=-1)
            log_prob = torch.distributions.Categorical(probs).log_prob(actions)
            returns, g = torch.zeros(len(trajectory)), 0.0
            for j in reversed(range(len(trajectory))):
                g = gamma * g + rewards[j, intention]
                returns[j] = g
            loss = loss - (returns * log_prob).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    actor, task, env, B = Actor(), Task(), ToyEnv(), []
    optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)
    for epoch in range(4):
        act(actor, env, task, B)
        learn(actor, optimizer, task, B)
        print("epoch", epoch, "buffer", len(B))


if __name__ == "__main__":
    main()
