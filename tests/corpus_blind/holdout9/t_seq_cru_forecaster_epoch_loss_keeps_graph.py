# corpus: continuous-recurrent-unit style forecaster for irregularly sampled series (state decays with the time gap between observations); the training loop sums the graph-bearing loss tensor into the epoch statistics instead of loss.item(), keeping every batch's graph alive for the whole epoch
# source: https://github.com/boschresearch/Continuous-Recurrent-Units/pull/4
import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


@dataclass
class Config:
    obs_dim: int = 2
    lat_dim: int = 16
    epochs: int = 2
    batches_per_epoch: int = 6
    lr: float = 1e-3


class DecayRecurrentCell(nn.Module):
    def __init__(self, obs_dim, lat_dim):
        super().__init__()
        self.inp = nn.Linear(obs_dim, lat_dim)
        self.rec = nn.Linear(lat_dim, lat_dim)
        self.log_tau = nn.Parameter(torch.zeros(lat_dim))

    def forward(self, obs, dt, state):
        decay = torch.exp(-dt.unsqueeze(-1) / torch.exp(self.log_tau))
        return torch.tanh(self.inp(obs) + self.rec(state * decay))


class CRUForecaster(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.cell = DecayRecurrentCell(cfg.obs_dim, cfg.lat_dim)
        self.mean_head = nn.Linear(cfg.lat_dim, cfg.obs_dim)
        self.var_head = nn.Linear(cfg.lat_dim, cfg.obs_dim)

    def forward(self, obs, time_points):
        B, T, _ = obs.shape
        state = torch.zeros(B, self.cfg.lat_dim)
        dts = torch.diff(time_points, dim=1, prepend=time_points[:, :1])
        means, variances = [], []
        for t in range(T):
            state = self.cell(obs[:, t], dts[:, t], state)
            means.append(self.mean_head(state))
            variances.append(nn.functional.softplus(self.var_head(state)) + 1e-4)
        return torch.stack(means, 1), torch.stack(variances, 1)


def gaussian_nll(target, mean, var):
    return 0.5 * (torch.log(2 * math.pi * var) + (target - mean) ** 2 / var).mean()


def make_batch(batch=8, length=12, obs_dim=2):
    time_points = torch.cumsum(torch.rand(batch, length) + 0.1, dim=1)
    obs = torch.sin(time_points).unsqueeze(-1).repeat(1, 1, obs_dim) + 0.05 * torch.randn(batch, length, obs_dim)
    return obs, time_points


class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    def train_epoch(self):
        self.model.train()
        epoch_ll = 0
        for _ in range(self.cfg.batches_per_epoch):
            obs, time_points = make_batch(obs_dim=self.cfg.obs_dim)
            self.optimizer.zero_grad()
            mean, var = self.model(obs[:, :-1], time_points[:, :-1])
            loss = gaussian_nll(obs[:, 1:], mean, var)
            loss.backward()
            self.optimizer.step()
            epoch_ll += loss  # expect: GG301
        return epoch_ll / self.cfg.batches_per_epoch

    def fit(self):
        history = []
        for epoch in range(self.cfg.epochs):
            epoch_ll = self.train_epoch()
            history.append(epoch_ll)
            print("epoch %d nll %.4f" % (epoch, float(epoch_ll)))
        return history


def main():
    cfg = Config()
    Trainer(CRUForecaster(cfg), cfg).fit()


if __name__ == "__main__":
    main()
