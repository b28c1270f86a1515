# corpus: torch-ac style PPO: collect_experiences runs the acmodel and computes GAE advantages under torch.no_grad, update_parameters backpropagates one combined policy/value/entropy loss per minibatch (correct)
# source: https://github.com/lcswillems/rl-starter-files/issues/6
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.distributions import Categorical


class ACModel(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh())
        self.actor = nn.Linear(32, n_actions)
        self.critic = nn.Linear(32, 1)

    def forward(self, obs):
        x = self.body(obs)
        return Categorical(logits=self.actor(x)), self.critic(x).squeeze(1)


@dataclass
class Experiences:
    obs: torch.Tensor
    action: torch.Tensor
    value: torch.Tensor
    log_prob: torch.Tensor
    advantage: torch.Tensor
    returnn: torch.Tensor


class PPOAlgo:
    def __init__(self, acmodel, num_procs=4, num_frames_per_proc=8, discount=0.99, gae_lambda=0.95,
                 entropy_coef=0.01, value_loss_coef=0.5, clip_eps=0.2, epochs=2, batch_size=8, lr=7e-4):
        self.acmodel = acmodel
        self.num_procs, self.num_frames_per_proc = num_procs, num_frames_per_proc
        self.discount, self.gae_lambda = discount, gae_lambda
        self.entropy_coef, self.value_loss_coef, self.clip_eps = entropy_coef, value_loss_coef, clip_eps
        self.epochs, self.batch_size = epochs, batch_size
        self.optimizer = torch.optim.Adam(acmodel.parameters(), lr=lr, eps=1e-8)
        self.obs = torch.randn(num_procs, 6)

    def collect_experiences(self):
        T, P = self.num_frames_per_proc, self.num_procs
        obss = torch.zeros(T, P, 6)
        actions = torch.zeros(T, P, dtype=torch.long)
        values = torch.zeros(T, P)
        rewards = torch.zeros(T, P)
        masks = torch.ones(T, P)
        log_probs = torch.zeros(T, P)
        advantages = torch.zeros(T, P)
        for i in range(T):
            with torch.no_grad():
                dist, value = self.acmodel(self.obs)
            action = dist.sample()
            obss[i], actions[i], values[i] = self.obs, action, value
            log_probs[i] = dist.log_prob(action)
            rewards[i] = torch.randn(P)
            masks[i] = (torch.rand(P) > 0.1).float()
            self.obs = self.obs + 0.1 * torch.randn(P, 6)
        with torch.no_grad():
            _, next_value = self.acmodel(self.obs)
        for i in reversed(range(T)):
            next_mask = masks[i + 1] if i < T - 1 else torch.ones(P)
            next_val = values[i + 1] if i < T - 1 else next_value
            next_adv = advantages[i + 1] if i < T - 1 else torch.zeros(P)
            delta = rewards[i] + self.discount * next_val * next_mask - values[i]
            advantages[i] = delta + self.discount * self.gae_lambda * next_adv * next_mask
        flat = lambda t: t.transpose(0, 1).reshape(-1, *t.shape[2:])
        return Experiences(flat(obss), flat(actions), flat(values), flat(log_probs), flat(advantages),
                           flat(values + advantages))

    def update_parameters(self, exps):
        logs = {"entropy": [], "value": [], "policy_loss": [], "value_loss": []}
        n = exps.obs.shape[0]
        for _ in range(self.epochs):
            for start in range(0, n, self.batch_size):
                idx = torch.arange(start, min(start + self.batch_size, n))
                dist, value = self.acmodel(exps.obs[idx])
                entropy = dist.entropy().mean()
                ratio = torch.exp(dist.log_prob(exps.action[idx]) - exps.log_prob[idx])
                surr1 = ratio * exps.advantage[idx]
                surr2 = torch.clamp(ratio, 1.0 - self.clip_eps, 1.0 + self.clip_eps) * exps.advantage[idx]
                policy_loss = -torch.min(surr1, surr2).mean()
                value_clipped = exps.value[idx] + torch.clamp(value - exps.value[idx], -self.clip_eps, self.clip_eps)
                value_loss = torch.max((value - exps.returnn[idx]).pow(2), (value_clipped - exps.returnn[idx]).pow(2)).mean()
                loss = policy_loss - self.entropy_coef * entropy + self.value_loss_coef * value_loss
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.acmodel.parameters(), 0.5)
                self.optimizer.step()
                logs["entropy"].append(entropy.item())
                logs["value"].append(value.mean().item())
                logs["policy_loss"].append(policy_loss.item())
                logs["value_loss"].append(value_loss.item())
        return {k: sum(v) / len(v) for k, v in logs.items()}


def main():
    torch.manual_seed(0)
    algo = PPOAlgo(ACModel(6, 3))
    before = algo.acmodel.critic.weight.detach().clone()
    for update in range(2):
        logs = algo.update_parameters(algo.collect_experiences())
    assert not torch.equal(before, algo.acmodel.critic.weight)
    print(logs)


if __name__ == "__main__":
    main()
