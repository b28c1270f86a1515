# corpus: Distributed-PPO style trainer (Pytorch-DPPO shape) where one forward of the shared actor-critic model yields both the clipped policy loss and the value loss; the value loss is backpropagated with retain_graph=True and the optimizer steps before the policy loss is backpropagated through the same graph
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/alexis-jacq/Pytorch-DPPO/issues/9
import math
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class Params:
    num_inputs: int = 6
    num_outputs: int = 2
    gamma: float = 0.99
    clip: float = 0.2
    ent_coeff: float = 0.0
    batch_size: int = 16
    time_horizon: int = 32
    num_epoch: int = 2
    lr: float = 3e-4


class Model(nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super().__init__()
        self.fc1 = nn.Linear(num_inputs, 32)
        self.fc2 = nn.Linear(32, 32)
        self.mu = nn.Linear(32, num_outputs)
        self.sigma_sq = nn.Linear(32, num_outputs)
        self.v = nn.Linear(32, 1)

    def forward(self, x):
        x1 = torch.tanh(self.fc1(x))
        x2 = torch.tanh(self.fc2(x1))
        mu = self.mu(x2)
        sigma_sq = nn.functional.softplus(self.sigma_sq(x2)) + 1e-3
        return mu, sigma_sq, self.v(x2)


def normal_log_density(x, mu, sigma_sq):
    return (-(x - mu).pow(2) / (2 * sigma_sq) - 0.5 * torch.log(2 * math.pi * sigma_sq)).sum(1, keepdim=True)


class ReplayMemory:
    def __init__(self):
        self.states, self.actions, self.rewards = [], [], []

    def push(self, s, a, r):
        self.states.append(s)
        self.actions.append(a)
        self.rewards.append(r)

    def sample(self, batch_size):
        idx = torch.randint(len(self.states), (batch_size,))
        s = torch.stack(self.states)[idx]
        a = torch.stack(self.actions)[idx]
        r = torch.stack(self.rewards)[idx]
        return s, a, r


def collect(model, params):
    memory = ReplayMemory()
    state = torch.randn(params.num_inputs)
    ret = 0.0
    for _ in range(params.time_horizon):
        with torch.no_grad():
            mu, sigma_sq, _ = model(state.unsqueeze(0))
            action = (mu + sigma_sq.sqrt() * torch.randn_like(mu)).squeeze(0)
        reward = -action.pow(2).sum()
        ret = reward + params.gamma * ret
        memory.push(state, action, ret.reshape(1))
        state = torch.randn(params.num_inputs)
    return memory


def train(model, model_old, optimizer, memory, params):
    model_old.load_state_dict(model.state_dict())
    for _ in range(params.num_epoch):
        batch_states, batch_actions, batch_returns = memory.sample(params.batch_size)
        mu_old, sigma_sq_old, v_pred_old = model_old(batch_states)
        probs_old = normal_log_density(batch_actions, mu_old, sigma_sq_old).detach()
        mu, sigma_sq, v_pred = model(batch_states)
        probs = normal_log_density(batch_actions, mu, sigma_sq)
        advantages = (batch_returns - v_pred_old).detach()
        ratio = torch.exp(probs - probs_old)
        surr1 = ratio * advantages
        surr2 = torch.clamp(ratio, 1.0 - params.clip, 1.0 + params.clip) * advantages
        loss_clip = -torch.mean(torch.min(surr1, surr2))
        loss_value = torch.mean((v_pred - batch_returns).pow(2))

        optimizer.zero_grad()
        loss_value.backward(retain_graph=True)  # also: GG111
        optimizer.step()  # expect: GG111
        optimizer.zero_grad()
        loss_clip.backward()  # also: GG111
        optimizer.step()
    return loss_clip.item(), loss_value.item()


def main():
    torch.manual_seed(0)
    params = Params()
    model = Model(params.num_inputs, params.num_outputs)
    model_old = Model(params.num_inputs, params.num_outputs)
    optimizer = torch.optim.Adam(model.parameters(), lr=params.lr)
    for update in range(3):
        memory = collect(model, params)
        lc, lv = train(model, model_old, optimizer, memory, params)
        print(f"update {update} clip {lc:.4f} value {lv:.4f}")


if __name__ == "__main__":
    main()
