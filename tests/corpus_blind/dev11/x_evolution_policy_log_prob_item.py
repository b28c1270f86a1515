# corpus: trainer's evolution policy is stepped from a log_prob computed under no_grad and returned with .item(); re-wrapping it in torch.tensor gives a loss with no graph, so policy_loss.backward() fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/coleam00/Archon/pull/821
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.distributions import Categorical


@dataclass
class TrainConfig:
    steps: int = 4
    policy_freq: int = 2
    lr: float = 1e-2
    policy_lr: float = 1e-2


class EvolvingNet(nn.Module):
    """A small regressor whose hidden width is chosen by a learned evolution policy."""

    def __init__(self, n_in=4, widths=(4, 8, 16)):
        super().__init__()
        self.widths = widths
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(n_in, w), nn.Tanh(), nn.Linear(w, 1)) for w in widths)
        self.active = 0
        self.policy = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, len(widths)))

    def forward(self, x):
        return self.blocks[self.active](x)

    def evolve_with_policy(self, last_loss, epsilon):
        state = torch.tensor([[last_loss, epsilon]])
        dist = Categorical(logits=self.policy(state))
        choice = dist.sample()
        log_prob = dist.log_prob(choice)
        previous = self.active
        self.active = int(choice.item())
        reward = 1.0 if self.active >= previous else -0.5
        return {"total_reward": reward, "log_prob": log_prob.item()}  # also: GG106


class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        main_params = [p for n, p in model.named_parameters() if not n.startswith("policy")]
        self.optimizer = torch.optim.SGD(main_params, lr=cfg.lr)
        self.policy_optimizer = torch.optim.Adam(model.policy.parameters(), lr=cfg.policy_lr)
        self.global_step = 0
        self.history = {"loss": [], "policy_loss": []}

    def train_step(self, x, y, epsilon):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        self.history["loss"].append(loss.item())

        if self.global_step % self.cfg.policy_freq == 0:
            with torch.no_grad():
                evo_stats = self.model.evolve_with_policy(loss.item(), epsilon)  # also: GG106
            reward = torch.tensor(evo_stats["total_reward"])
            log_prob = torch.tensor(evo_stats["log_prob"])  # also: GG106
            policy_loss = -(log_prob * reward)
            self.policy_optimizer.zero_grad()
            policy_loss.backward()  # expect: GG106
            self.policy_optimizer.step()
            self.history["policy_loss"].append(policy_loss.item())
        self.global_step += 1


def main():
    torch.manual_seed(0)
    cfg = TrainConfig()
    trainer = Trainer(EvolvingNet(), cfg)
    for step in range(cfg.steps):
        x = torch.randn(8, 4)
        y = x.sum(1, keepdim=True)
        trainer.train_step(x, y, epsilon=0.1)
    print(trainer.history)


if __name__ == "__main__":
    main()
