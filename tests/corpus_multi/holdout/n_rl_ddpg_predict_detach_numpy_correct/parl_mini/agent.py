import numpy as np
import torch


class MujocoAgent:
    def __init__(self, algorithm, act_dim, expl_noise=0.1, seed=0):
        self.alg = algorithm
        self.act_dim = act_dim
        self.expl_noise = expl_noise
        self.rng = np.random.default_rng(seed)

    def sample(self, obs):
        action_numpy = self.predict(obs)
        noise = self.rng.normal(0, self.expl_noise, size=self.act_dim)
        return np.clip(action_numpy + noise, -1.0, 1.0).astype(np.float32)

    def predict(self, obs):
        obs = torch.as_tensor(obs.reshape(1, -1), dtype=torch.float32)
        action = self.alg.predict(obs)
        return action.cpu().detach().numpy().flatten()

    def learn(self, obs, action, reward, next_obs, terminal):
        batch = [torch.as_tensor(x, dtype=torch.float32) for x in (obs, action, reward, next_obs, terminal)]
        critic_loss, actor_loss = self.alg.learn(*batch)
        return critic_loss.item(), actor_loss.item()
