import copy

import torch
import torch.nn.functional as F


class DDPG:
    def __init__(self, model, gamma=0.99, tau=0.005, actor_lr=1e-3, critic_lr=1e-3):
        self.model = model
        self.target_model = copy.deepcopy(model)
        self.gamma, self.tau = gamma, tau
        self.actor_optimizer = torch.optim.Adam(self.model.get_actor_params(), lr=actor_lr)
        self.critic_optimizer = torch.optim.Adam(self.model.get_critic_params(), lr=critic_lr)

    def predict(self, obs):
        return self.model.policy(obs)

    def learn(self, obs, action, reward, next_obs, terminal):
        critic_loss = self._critic_learn(obs, action, reward, next_obs, terminal)
        actor_loss = self._actor_learn(obs)
        self.sync_target()
        return critic_loss, actor_loss

    def _critic_learn(self, obs, action, reward, next_obs, terminal):
        with torch.no_grad():
            target_q = self.target_model.value(next_obs, self.target_model.policy(next_obs))
            target_q = reward + ((1.0 - terminal) * self.gamma * target_q)
        current_q = self.model.value(obs, action)
        critic_loss = F.mse_loss(current_q, target_q)
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()
        return critic_loss

    def _actor_learn(self, obs):
        actor_loss = -self.model.value(obs, self.model.policy(obs)).mean()
        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()
        return actor_loss

    @torch.no_grad()
    def sync_target(self):
        for param, target_param in zip(self.model.parameters(), self.target_model.parameters()):
            target_param.data.copy_(self.tau * param.data + (1 - self.tau) * target_param.data)
