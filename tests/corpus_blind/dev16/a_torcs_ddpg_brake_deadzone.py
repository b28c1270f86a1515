# corpus: TORCS DDPG agent whose actor adds a brake dead-zone by writing zeros into the sigmoid output in place; sigmoid saved that output for backward, so the first critic/actor backward through the actor raises a version error.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/namjiwon1023/Reinforcement_learning/blob/5a2122f009985a9344f5cfc22983f51a0be775ce/DDPG_TORCS/Actor.py
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

device = torch.device("cpu")


class Actor(nn.Module):
    def __init__(self, state_size, hidden1=32, hidden2=32, brake_deadzone=0.05):
        super().__init__()
        self.fc1 = nn.Linear(state_size, hidden1)
        self.fc2 = nn.Linear(hidden1, hidden2)
        self.steering = nn.Linear(hidden2, 1)
        self.steering.weight.data.normal_(0, 1e-4)
        self.acceleration = nn.Linear(hidden2, 1)
        self.acceleration.weight.data.normal_(0, 1e-4)
        self.brake = nn.Linear(hidden2, 1)
        self.brake.weight.data.normal_(0, 1e-4)
        self.brake_deadzone = brake_deadzone

    def forward(self, state):
        x = F.relu(self.fc1(state))
        x = F.relu(self.fc2(x))
        steering_out = torch.tanh(self.steering(x))
        acceleration_out = torch.sigmoid(self.acceleration(x))
        brake_out = torch.sigmoid(self.brake(x))
        brake_out[brake_out < self.brake_deadzone] = 0.0  # expect: GG107
        out = torch.cat((steering_out, acceleration_out, brake_out), 1)
        return out


class Critic(nn.Module):
    def __init__(self, state_size, action_size, hidden1=32, hidden2=32):
        super().__init__()
        self.fc_s = nn.Linear(state_size, hidden1)
        self.fc_a = nn.Linear(action_size, hidden2)
        self.fc_h = nn.Linear(hidden1, hidden2)
        self.out = nn.Linear(hidden2, 1)

    def forward(self, state, action):
        s = F.relu(self.fc_s(state))
        h = self.fc_h(s) + self.fc_a(action)
        return self.out(F.relu(h))


class OUNoise:
    def OU(self, x, mu, theta, sigma):
        return theta * (mu - x) + sigma * np.random.randn(1)[0]


class ReplayBuffer:
    def __init__(self, obs_dim, size, batch_size):
        self.obs_buf = np.zeros([size, obs_dim], dtype=np.float32)
        self.next_obs_buf = np.zeros([size, obs_dim], dtype=np.float32)
        self.acts_buf = np.zeros([size, 3], dtype=np.float32)
        self.rews_buf = np.zeros([size], dtype=np.float32)
        self.done_buf = np.zeros([size], dtype=np.float32)
        self.max_size, self.batch_size = size, batch_size
        self.ptr, self.size = 0, 0

    def store(self, obs, act, rew, next_obs, done):
        self.obs_buf[self.ptr] = obs
        self.next_obs_buf[self.ptr] = next_obs
        self.acts_buf[self.ptr] = act
        self.rews_buf[self.ptr] = rew
        self.done_buf[self.ptr] = done
        self.ptr = (self.ptr + 1) % self.max_size
        self.size = min(self.size + 1, self.max_size)

    def sample_batch(self):
        idxs = np.random.choice(self.size, size=self.batch_size, replace=True)
        return dict(obs=self.obs_buf[idxs], next_obs=self.next_obs_buf[idxs],
                    act=self.acts_buf[idxs], rew=self.rews_buf[idxs], done=self.done_buf[idxs])


class FakeTorcsEnv:
    """Stands in for gym_torcs: 29 sensor values, reward for speed along the track axis."""

    def __init__(self, state_size=29):
        self.state_size = state_size
        self.s = None

    def reset(self):
        self.s = np.random.uniform(-1, 1, self.state_size).astype(np.float32)
        return self.s

    def step(self, a):
        self.s = np.clip(self.s + 0.01 * np.random.randn(self.state_size), -1, 1).astype(np.float32)
        r = float(a[1] - a[2] - abs(a[0]) * 0.1)
        return self.s, r, False


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, 0, 1e-2)
        m.bias.data.fill_(0.0)


class Agent:
    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.memory = ReplayBuffer(self.state_size, self.memory_size, self.batch_size)
        self.actor_eval = Actor(self.state_size).to(device)
        self.actor_eval.apply(init_weights)
        self.actor_target = Actor(self.state_size).to(device)
        self.actor_target.load_state_dict(self.actor_eval.state_dict())
        self.actor_target.eval()
        self.critic_eval = Critic(self.state_size, self.action_size).to(device)
        self.critic_target = Critic(self.state_size, self.action_size).to(device)
        self.critic_target.load_state_dict(self.critic_eval.state_dict())
        self.critic_target.eval()
        self.actor_optimizer = optim.Adam(self.actor_eval.parameters(), lr=self.actor_lr)
        self.critic_optimizer = optim.Adam(self.critic_eval.parameters(), lr=self.critic_lr)
        self.critic_loss_func = nn.MSELoss()
        self.critic_L = 0.0

    def learn(self):
        samples = self.memory.sample_batch()
        state = torch.FloatTensor(samples["obs"]).to(device)
        next_state = torch.FloatTensor(samples["next_obs"]).to(device)
        action = torch.FloatTensor(samples["act"]).reshape(-1, 3).to(device)
        reward = torch.FloatTensor(samples["rew"]).reshape(-1, 1).to(device)
        done = torch.FloatTensor(samples["done"]).reshape(-1, 1).to(device)

        # Critic Network Update
        mask = 1 - done
        next_action = self.actor_target(next_state)
        next_value = self.critic_target(next_state, next_action)
        target_values = reward + self.gamma * next_value * mask
        eval_values = self.critic_eval(state, action)
        critic_loss = self.critic_loss_func(eval_values, target_values)
        self.critic_L = critic_loss.detach().cpu().numpy()
        self.critic_optimizer.zero_grad()
        critic_loss.backward()  # also: GG107
        self.critic_optimizer.step()

        # Actor Network Update
        actor_loss = -self.critic_eval(state, self.actor_eval(state)).mean()
        self.actor_optimizer.zero_grad()
        actor_loss.backward()  # also: GG107
        self.actor_optimizer.step()
        self._target_soft_update()

    def _target_soft_update(self):
        tau = self.tau
        for t, e in zip(self.actor_target.parameters(), self.actor_eval.parameters()):
            t.data.copy_(tau * e.data + (1.0 - tau) * t.data)
        for t, e in zip(self.critic_target.parameters(), self.critic_eval.parameters()):
            t.data.copy_(tau * e.data + (1.0 - tau) * t.data)


def train(agent, env, episodes=2, max_steps=20, explore=100000.0):
    ou = OUNoise()
    for e in range(episodes):
        s = env.reset()
        total_reward = 0.0
        for i in range(max_steps):
            agent.epsilon -= 1.0 / explore
            noise = np.zeros([1, agent.action_size])
            a_n = np.zeros([1, agent.action_size])
            a = agent.actor_eval(torch.unsqueeze(torch.FloatTensor(s), 0)).detach().cpu().numpy()
            noise[0][0] = ou.OU(a[0][0], 0.0, 0.6, 0.30) * max(agent.epsilon, 0)
            noise[0][1] = ou.OU(a[0][1], 0.5, 1.0, 0.10) * max(agent.epsilon, 0)
            noise[0][2] = ou.OU(a[0][2], -0.1, 1.0, 0.05) * max(agent.epsilon, 0)
            a_n[0] = a[0] + noise[0]
            s_, r, done = env.step(a_n[0])
            agent.memory.store(s, a_n[0], r, s_, done)
            if agent.memory.size >= agent.batch_size:
                agent.learn()
            total_reward += r
            s = s_
            agent.step += 1
        print(f"Episode {e} total reward {total_reward:.3f} critic loss {float(agent.critic_L):.4f}")


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    params = {"memory_size": 256, "batch_size": 8, "state_size": 29, "action_size": 3,
              "gamma": 0.95, "tau": 1e-3, "actor_lr": 1e-4, "critic_lr": 1e-3,
              "epsilon": 1.0, "step": 0}
    agent = Agent(**params)
    train(agent, FakeTorcsEnv())


if __name__ == "__main__":
    main()
