# corpus: Discrete SAC agent (ac-93/soft-actor-critic sac_discrete shape) that optimizes log_alpha for the entropy temperature and, to keep alpha bounded, clamps the log_alpha leaf in place before building the alpha loss, outside torch.no_grad()
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/ac-93/soft-actor-critic/issues/2
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, act_dim))

    def forward(self, x):
        return self.net(x)


class ReplayBuffer:
    def __init__(self, obs_dim, size):
        self.obs = np.zeros((size, obs_dim), dtype=np.float32)
        self.obs2 = np.zeros((size, obs_dim), dtype=np.float32)
        self.act = np.zeros(size, dtype=np.int64)
        self.rew = np.zeros(size, dtype=np.float32)
        self.done = np.zeros(size, dtype=np.float32)
        self.ptr, self.size, self.max_size = 0, 0, size

    def store(self, o, a, r, o2, d):
        self.obs[self.ptr], self.act[self.ptr], self.rew[self.ptr] = o, a, r
        self.obs2[self.ptr], self.done[self.ptr] = o2, d
        self.ptr = (self.ptr + 1) % self.max_size
        self.size = min(self.size + 1, self.max_size)

    def sample_batch(self, batch_size):
        idxs = np.random.randint(0, self.size, size=batch_size)
        return {k: torch.as_tensor(getattr(self, k)[idxs]) for k in ("obs", "obs2", "act", "rew", "done")}


class SACDiscrete:
    def __init__(self, obs_dim, act_dim, gamma=0.99, polyak=0.995, lr=3e-4):
        self.policy = MLP(obs_dim, act_dim)
        self.q1, self.q2 = MLP(obs_dim, act_dim), MLP(obs_dim, act_dim)
        self.q1_targ, self.q2_targ = copy.deepcopy(self.q1), copy.deepcopy(self.q2)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.target_entropy = 0.98 * -np.log(1.0 / act_dim)
        self.pi_opt = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.q_opt = torch.optim.Adam(list(self.q1.parameters()) + list(self.q2.parameters()), lr=lr)
        self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=lr)
        self.gamma, self.polyak = gamma, polyak

    def policy_dist(self, obs):
        logits = self.policy(obs)
        return F.softmax(logits, -1), F.log_softmax(logits, -1)

    def update_q(self, data, alpha):
        with torch.no_grad():
            pi2, logp2 = self.policy_dist(data["obs2"])
            q_targ = torch.min(self.q1_targ(data["obs2"]), self.q2_targ(data["obs2"]))
            v2 = (pi2 * (q_targ - alpha * logp2)).sum(-1)
            backup = data["rew"] + self.gamma * (1 - data["done"]) * v2
        a = data["act"].unsqueeze(1)
        loss_q = F.mse_loss(self.q1(data["obs"]).gather(1, a).squeeze(1), backup) + \
            F.mse_loss(self.q2(data["obs"]).gather(1, a).squeeze(1), backup)
        self.q_opt.zero_grad()
        loss_q.backward()
        self.q_opt.step()
        return loss_q.item()

    def update_pi_and_alpha(self, data, alpha):
        pi, logp = self.policy_dist(data["obs"])
        with torch.no_grad():
            q = torch.min(self.q1(data["obs"]), self.q2(data["obs"]))
        loss_pi = (pi * (alpha * logp - q)).sum(-1).mean()
        self.pi_opt.zero_grad()
        loss_pi.backward()
        self.pi_opt.step()
        entropy = -(pi.detach() * logp.detach()).sum(-1)
        self.log_alpha.clamp_(min=-5.0, max=2.0)  # expect: GG108
        alpha_loss = -(self.log_alpha * (self.target_entropy - entropy)).mean()
        self.alpha_opt.zero_grad()
        alpha_loss.backward()
        self.alpha_opt.step()
        return loss_pi.item(), alpha_loss.item()

    def update(self, data):
        alpha = self.log_alpha.exp().detach()
        stats = {"q": self.update_q(data, alpha)}
        stats["pi"], stats["alpha"] = self.update_pi_and_alpha(data, alpha)
        with torch.no_grad():
            for net, targ in ((self.q1, self.q1_targ), (self.q2, self.q2_targ)):
                for p, p_targ in zip(net.parameters(), targ.parameters()):
                    p_targ.mul_(self.polyak).add_((1 - self.polyak) * p)
        return stats


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    obs_dim, act_dim = 6, 3
    agent, buf = SACDiscrete(obs_dim, act_dim), ReplayBuffer(obs_dim, 256)
    o = np.random.randn(obs_dim).astype(np.float32)
    for t in range(64):
        with torch.no_grad():
            a = int(torch.distributions.Categorical(logits=agent.policy(torch.as_tensor(o))).sample())
        o2 = np.random.randn(obs_dim).astype(np.float32)
        buf.store(o, a, float(a == 0), o2, float(t % 16 == 15))
        o = o2
        if t >= 31 and t % 8 == 7:
            print(t, agent.update(buf.sample_batch(16)))


if __name__ == "__main__":
    main()
