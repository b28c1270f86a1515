import numpy as np
import torch
from torch.distributions.normal import Normal

from policy_network import Policy_Network


class REINFORCE:
    def __init__(self, obs_space_dims, action_space_dims, lr=1e-3, gamma=0.99):
        self.gamma = gamma
        self.eps = 1e-6
        self.probs = []  # log-probabilities of the sampled actions, kept until the episode ends
        self.rewards = []
        self.net = Policy_Network(obs_space_dims, action_space_dims)
        self.optimizer = torch.optim.AdamW(self.net.parameters(), lr=lr)

    def sample_action(self, state):
        state = torch.tensor(np.array([state]))
        action_means, action_stddevs = self.net(state)
        distrib = Normal(action_means[0] + self.eps, action_stddevs[0] + self.eps)
        action = distrib.sample()
        prob = distrib.log_prob(action)
        self.probs.append(prob)
        return action.numpy()

    def update(self):
        running_g = 0.0
        gs = []
        for R in self.rewards[::-1]:
            running_g = R + self.gamma * running_g
            gs.insert(0, running_g)
        deltas = torch.tensor(gs)

        log_probs = torch.stack(self.probs).sum(dim=-1)
        loss = -torch.sum(log_probs * deltas)

        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

        self.probs = []
        self.rewards = []
        return loss.item()
