import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, obs_dim, action_dim):
        super().__init__()
        self.l1 = nn.Linear(obs_dim, 64)
        self.l2 = nn.Linear(64, 64)
        self.l3 = nn.Linear(64, action_dim)

    def forward(self, obs):
        x = F.relu(self.l1(obs))
        x = F.relu(self.l2(x))
        return torch.tanh(self.l3(x))


class Critic(nn.Module):
    def __init__(self, obs_dim, action_dim):
        super().__init__()
        self.l1 = nn.Linear(obs_dim + action_dim, 64)
        self.l2 = nn.Linear(64, 64)
        self.l3 = nn.Linear(64, 1)

    def forward(self, obs, action):
        x = F.relu(self.l1(torch.cat([obs, action], dim=1)))
        x = F.relu(self.l2(x))
        return self.l3(x)


class MujocoModel(nn.Module):
    def __init__(self, obs_dim, action_dim):
        super().__init__()
        self.actor_model = Actor(obs_dim, action_dim)
        self.critic_model = Critic(obs_dim, action_dim)

    def policy(self, obs):
        return self.actor_model(obs)

    def value(self, obs, action):
        return self.critic_model(obs, action)

    def get_actor_params(self):
        return self.actor_model.parameters()

    def get_critic_params(self):
        return self.critic_model.parameters()
