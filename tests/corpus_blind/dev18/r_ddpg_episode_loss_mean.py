# corpus: RLcycle-style DDPG agent collects the learner's loss tensors per episode and averages them with np.mean for the logger; the learner still returns the graph-bearing loss tensors, so numpy conversion fails.
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/cyoon1729/RLcycle/pull/10
from types import SimpleNamespace
from typing import Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


def soft_update(network, target_network, tau):
    for t_param, l_param in zip(target_network.parameters(), network.parameters()):
        t_param.data.copy_(tau * l_param.data + (1.0 - tau) * t_param.data)


class Critic(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim + action_dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, state, action):
        return self.net(torch.cat([state, action], 1))


class Actor(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, 32), nn.ReLU(), nn.Linear(32, action_dim), nn.Tanh())

    def forward(self, state):
        return self.net(state)


class DDPGLearner:
    def __init__(self, hyper_params, state_dim, action_dim):
        self.hyper_params = hyper_params
        self.critic1, self.target_critic1 = Critic(state_dim, action_dim), Critic(state_dim, action_dim)
        self.critic2, self.target_critic2 = Critic(state_dim, action_dim), Critic(state_dim, action_dim)
        self.actor, self.target_actor = Actor(state_dim, action_dim), Actor(state_dim, action_dim)
        self.critic1_optimizer = optim.Adam(self.critic1.parameters(), lr=1e-3)
        self.critic2_optimizer = optim.Adam(self.critic2.parameters(), lr=1e-3)
        self.actor_optimizer = optim.Adam(self.actor.parameters(), lr=1e-4)
        for net, target in ((self.critic1, self.target_critic1), (self.critic2, self.target_critic2),
                            (self.actor, self.target_actor)):
            target.load_state_dict(net.state_dict())
        self.update_step = 0

    def update_model(self, experience: Tuple[torch.Tensor, ...]) -> Tuple[torch.Tensor, ...]:
        states, actions, rewards, next_states, dones = experience
        with torch.no_grad():
            next_actions = self.target_actor(next_states)
            next_q = torch.min(self.target_critic1(next_states, next_actions),
                               self.target_critic2(next_states, next_actions))
            target_q = rewards + (1 - dones) * self.hyper_params.gamma * next_q
        critic1_loss = F.mse_loss(self.critic1(states, actions), target_q)
        critic2_loss = F.mse_loss(self.critic2(states, actions), target_q)

        self.critic1_optimizer.zero_grad()
        critic1_loss.backward()
        self.critic1_optimizer.step()
        self.critic2_optimizer.zero_grad()
        critic2_loss.backward()
        self.critic2_optimizer.step()

        policy_loss = -self.critic1(states, self.actor(states)).mean()
        self.actor_optimizer.zero_grad()
        policy_loss.backward()
        self.actor_optimizer.step()

        soft_update(self.critic1, self.target_critic1, self.hyper_params.tau)
        soft_update(self.critic2, self.target_critic2, self.hyper_params.tau)
        soft_update(self.actor, self.target_actor, self.hyper_params.tau)
        self.update_step += 1
        info = (critic1_loss, critic2_loss, policy_loss)
        return info


class ReplayBuffer:
    def __init__(self):
        self.storage = []

    def add(self, experience):
        self.storage.append(experience)

    def sample(self, batch_size):
        idx = np.random.randint(len(self.storage), size=batch_size)
        s, a, r, ns, d = zip(*[self.storage[i] for i in idx])
        to = lambda x: torch.as_tensor(np.array(x), dtype=torch.float32)
        return to(s), to(a), to(r).unsqueeze(1), to(ns), to(d).unsqueeze(1)

    def __len__(self):
        return len(self.storage)


class Logger:
    def write_log(self, log_dict):
        print({k: round(float(v), 4) for k, v in log_dict.items()})


class DDPGAgent:
    def __init__(self, experiment_info, hyper_params):
        self.experiment_info, self.hyper_params = experiment_info, hyper_params
        self.learner = DDPGLearner(hyper_params, experiment_info.state_dim, experiment_info.action_dim)
        self.replay_buffer = ReplayBuffer()
        self.logger = Logger()
        self.update_step = 0

    def env_step(self, state, action):
        next_state = np.clip(state + 0.1 * np.random.randn(*state.shape), -1, 1).astype(np.float32)
        reward = float(-np.sum(action ** 2))
        return next_state, reward

    def train(self):
        for episode_i in range(self.experiment_info.total_num_episodes):
            state = np.random.randn(self.experiment_info.state_dim).astype(np.float32)
            losses = dict(critic1_loss=[], critic2_loss=[], actor_loss=[])
            episode_reward = 0
            for t in range(self.experiment_info.max_episode_steps):
                with torch.no_grad():
                    action = self.learner.actor(torch.as_tensor(state).unsqueeze(0)).squeeze(0).numpy()
                action = np.clip(action + 0.1 * np.random.randn(*action.shape), -1, 1)
                next_state, reward = self.env_step(state, action)
                done = float(t == self.experiment_info.max_episode_steps - 1)
                self.replay_buffer.add((state, action, reward, next_state, done))
                episode_reward += reward
                state = next_state
                if len(self.replay_buffer) >= self.hyper_params.update_starting_point:
                    experience = self.replay_buffer.sample(self.hyper_params.batch_size)
                    info = self.learner.update_model(experience)
                    self.update_step = self.update_step + 1
                    critic1_loss, critic2_loss, actor_loss = info[:3]
                    losses["critic1_loss"].append(critic1_loss)  # also: GG110
                    losses["critic2_loss"].append(critic2_loss)
                    losses["actor_loss"].append(actor_loss)
            print(f"[TRAIN] episode num: {episode_i} | update step: {self.update_step} |"
                  f" episode reward: {episode_reward}")
            if self.experiment_info.log_wandb:
                log_dict = dict(
                    episode_reward=episode_reward,
                    critic1_loss=np.mean(losses["critic1_loss"]),  # expect: GG110
                    critic2_loss=np.mean(losses["critic2_loss"]),
                    actor_loss=np.mean(losses["actor_loss"]),
                )
                self.logger.write_log(log_dict)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    experiment_info = SimpleNamespace(state_dim=3, action_dim=1, total_num_episodes=3,
                                      max_episode_steps=20, log_wandb=True)
    hyper_params = SimpleNamespace(gamma=0.99, tau=0.005, batch_size=8, update_starting_point=10)
    DDPGAgent(experiment_info, hyper_params).train()


if __name__ == "__main__":
    main()
