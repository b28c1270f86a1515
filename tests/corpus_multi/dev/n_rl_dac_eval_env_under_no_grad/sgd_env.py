import numpy as np
import torch
import torch.nn as nn


class SGDEnv:
    """DAC environment: the agent picks the learning rate of an inner regression model each step.

    Observation: [last loss, log10 lr]; reward: minus the training loss of the batch just taken.
    """

    lr_choices = (1e-3, 1e-2, 1e-1)

    def __init__(self, seed=0, cutoff=5, batch_size=16):
        self.seed = seed
        self.cutoff = cutoff
        self.batch_size = batch_size
        self.loss_function = nn.MSELoss(reduction="none")
        self.model = None

    def _make_problem(self):
        g = torch.Generator().manual_seed(self.seed)
        self.x = torch.randn(128, 8, generator=g)
        self.y = self.x @ torch.randn(8, 1, generator=g) + 0.1 * torch.randn(128, 1, generator=g)
        self.model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=self.lr_choices[0])
        self.rng = np.random.default_rng(self.seed)

    def _train_batch_(self):
        idx = torch.as_tensor(self.rng.integers(0, len(self.x), self.batch_size))
        output = self.model(self.x[idx])
        loss = self.loss_function(output, self.y[idx])
        self.optimizer.zero_grad()
        loss.mean().backward()  # also: GG106
        self.optimizer.step()
        return loss.mean().item()

    def get_default_reward(self):
        return -self._train_batch_()  # also: GG106

    def _obs(self, reward):
        return np.array([-reward, np.log10(self.optimizer.param_groups[0]["lr"])], dtype=np.float32)

    def reset(self):
        self._make_problem()
        self.n_steps = 0
        reward = self.get_default_reward()  # also: GG106
        return self._obs(reward)

    def step(self, action):
        self.optimizer.param_groups[0]["lr"] = self.lr_choices[action]
        reward = self.get_default_reward()
        self.n_steps += 1
        return self._obs(reward), reward, self.n_steps >= self.cutoff
