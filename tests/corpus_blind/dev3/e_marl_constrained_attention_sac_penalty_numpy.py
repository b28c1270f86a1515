# corpus: constrained multi-agent attention-critic SAC returns the mean penalty Q per agent for the Lagrange multiplier update by feeding the grad-carrying Q means to np.asarray
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/parnika31/MACAAC/issues/1
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MSELoss = nn.MSELoss()


class AttentionCritic(nn.Module):
    """Per-agent encoders + one shared attention head over the other agents' embeddings."""

    def __init__(self, sa_sizes, hidden_dim=16):
        super().__init__()
        self.encoders = nn.ModuleList([nn.Linear(o + a, hidden_dim) for o, a in sa_sizes])
        self.key = nn.Linear(hidden_dim, hidden_dim, bias=False)
        self.query = nn.Linear(hidden_dim, hidden_dim, bias=False)
        self.heads = nn.ModuleList([nn.Linear(2 * hidden_dim, 1) for _ in sa_sizes])

    def forward(self, inps, regularize=False):
        embs = [F.leaky_relu(enc(torch.cat([o, a], 1))) for enc, (o, a) in zip(self.encoders, inps)]
        rets = []
        for i, emb in enumerate(embs):
            others = torch.stack([e for j, e in enumerate(embs) if j != i], 1)
            logits = torch.einsum("bd,bnd->bn", self.query(emb), self.key(others)) / emb.shape[1] ** 0.5
            attended = (F.softmax(logits, 1).unsqueeze(-1) * others).sum(1)
            q = self.heads[i](torch.cat([emb, attended], 1))
            regs = [1e-3 * logits.pow(2).mean()] if regularize else []
            rets.append((q, regs))
        return rets


class ConstrainedAttentionSAC:
    def __init__(self, sa_sizes, gamma=0.99, q_lr=1e-3):
        self.nagents = len(sa_sizes)
        self.gamma = gamma
        self.penalty_critic = AttentionCritic(sa_sizes)
        self.penalty_target_critic = AttentionCritic(sa_sizes)
        self.penalty_target_critic.load_state_dict(self.penalty_critic.state_dict())
        self.penalty_critic_optimizer = torch.optim.Adam(self.penalty_critic.parameters(), lr=q_lr)

    def update_penalty_critic(self, sample):
        obs, acs, penalties, next_obs, next_acs, dones = sample
        with torch.no_grad():
            next_qs = [q for q, _ in self.penalty_target_critic(list(zip(next_obs, next_acs)))]
        critic_rets = self.penalty_critic(list(zip(obs, acs)), regularize=True)
        pen_q_loss = 0
        for a_i, nq, (pq, regs) in zip(range(self.nagents), next_qs, critic_rets):
            target_q = penalties[a_i].view(-1, 1) + self.gamma * nq * (1 - dones[a_i].view(-1, 1))
            pen_q_loss += MSELoss(pq, target_q)
            for reg in regs:
                pen_q_loss += reg
        pen_q_loss.backward()
        penalty_helper = torch.from_numpy(np.asarray([ret[0].mean() for ret in critic_rets], dtype=float))  # expect: GG110
        self.penalty_critic_optimizer.step()
        self.penalty_critic_optimizer.zero_grad()
        return penalty_helper


def sample_batch(nagents=3, obs_dim=6, act_dim=3, batch=16):
    def per_agent(fn):
        return [fn() for _ in range(nagents)]
    obs = per_agent(lambda: torch.randn(batch, obs_dim))
    acs = per_agent(lambda: F.one_hot(torch.randint(0, act_dim, (batch,)), act_dim).float())
    pens = per_agent(lambda: torch.rand(batch))
    next_obs = per_agent(lambda: torch.randn(batch, obs_dim))
    next_acs = per_agent(lambda: F.one_hot(torch.randint(0, act_dim, (batch,)), act_dim).float())
    dones = per_agent(lambda: torch.zeros(batch))
    return obs, acs, pens, next_obs, next_acs, dones


if __name__ == "__main__":
    torch.manual_seed(0)
    model = ConstrainedAttentionSAC([(6, 3)] * 3)
    lb_t = torch.from_numpy(np.random.rand(1)).float()  # Lagrange multiplier
    alpha_1, b_t = 0.2, 1e-2
    lag_mul_ls = []
    for u_i in range(3):
        penalty_q = model.update_penalty_critic(sample_batch())
        lb_t_ = torch.max(torch.tensor(0.0), lb_t + (penalty_q.mean() - alpha_1).float() * b_t)
        lag_mul_ls.append(lb_t_)
    lb_t = torch.stack(lag_mul_ls).mean()
    print("lagrange multiplier", float(lb_t))
