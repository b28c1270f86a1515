# corpus: Spinning Up PPO exercise with a hand-written diagonal Gaussian whose log-likelihood is computed in NumPy on detached tensors, so loss_pi has no graph and loss_pi.backward() raises.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/openai/spinningup/issues/243
import numpy as np
import torch
import torch.nn as nn
from torch.optim import Adam


def mlp(sizes, activation, output_activation=nn.Identity):
    layers = []
    for j in range(len(sizes) - 1):
        act = activation if j < len(sizes) - 2 else output_activation
        layers += [nn.Linear(sizes[j], sizes[j + 1]), act()]
    return nn.Sequential(*layers)


def discount_cumsum(x, discount):
    out = np.zeros_like(x)
    running = 0.0
    for t in reversed(range(len(x))):
        running = x[t] + discount * running
        out[t] = running
    return out


# ---- exercise 1.1: written by the student ----
def gaussian_likelihood(x, mu, log_std):
    x, mu, log_std = (t.detach().numpy() for t in (x, mu, log_std))  # expect: GG106
    pre_sum = -0.5 * (((x - mu) / np.exp(log_std)) ** 2 + 2 * log_std + np.log(2 * np.pi))
    return torch.as_tensor(pre_sum.sum(axis=-1), dtype=torch.float32)


class DiagonalGaussianDistribution:
    def __init__(self, mu, log_std):
        self.mu = mu
        self.log_std = log_std

    def sample(self):
        return self.mu + torch.exp(self.log_std) * torch.randn_like(self.mu)

    def log_prob(self, value):
        return gaussian_likelihood(value, self.mu, self.log_std)

    def entropy(self):
        return 0.5 + 0.5 * np.log(2 * np.pi) + self.log_std.sum(axis=-1)


class MLPGaussianActor(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden_sizes, activation):
        super().__init__()
        self.log_std = nn.Parameter(-0.5 * torch.ones(act_dim))
        self.mu_net = mlp([obs_dim] + list(hidden_sizes) + [act_dim], activation)

    def forward(self, obs, act=None):
        mu = self.mu_net(obs)
        pi = DiagonalGaussianDistribution(mu, self.log_std)
        logp_a = None
        if act is not None:
            logp_a = pi.log_prob(act)
        return pi, logp_a


class MLPCritic(nn.Module):
    def __init__(self, obs_dim, hidden_sizes, activation):
        super().__init__()
        self.v_net = mlp([obs_dim] + list(hidden_sizes) + [1], activation)

    def forward(self, obs):
        return torch.squeeze(self.v_net(obs), -1)


class ExerciseActorCritic(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden_sizes=(16,), activation=nn.Tanh):
        super().__init__()
        self.pi = MLPGaussianActor(obs_dim, act_dim, hidden_sizes, activation)
        self.v = MLPCritic(obs_dim, hidden_sizes, activation)

    def step(self, obs):
        with torch.no_grad():
            pi, _ = self.pi(obs)
            a = pi.sample()
            logp_a = pi.log_prob(a)
            v = self.v(obs)
        return a.numpy(), v.numpy(), logp_a.numpy()


class PPOBuffer:
    def __init__(self, obs_dim, act_dim, size, gamma=0.99, lam=0.95):
        self.obs_buf = np.zeros((size, obs_dim), dtype=np.float32)
        self.act_buf = np.zeros((size, act_dim), dtype=np.float32)
        self.adv_buf = np.zeros(size, dtype=np.float32)
        self.rew_buf = np.zeros(size, dtype=np.float32)
        self.ret_buf = np.zeros(size, dtype=np.float32)
        self.val_buf = np.zeros(size, dtype=np.float32)
        self.logp_buf = np.zeros(size, dtype=np.float32)
        self.gamma, self.lam = gamma, lam
        self.ptr, self.path_start_idx, self.max_size = 0, 0, size

    def store(self, obs, act, rew, val, logp):
        self.obs_buf[self.ptr] = obs
        self.act_buf[self.ptr] = act
        self.rew_buf[self.ptr] = rew
        self.val_buf[self.ptr] = val
        self.logp_buf[self.ptr] = logp
        self.ptr += 1

    def finish_path(self, last_val=0.0):
        path_slice = slice(self.path_start_idx, self.ptr)
        rews = np.append(self.rew_buf[path_slice], last_val)
        vals = np.append(self.val_buf[path_slice], last_val)
        deltas = rews[:-1] + self.gamma * vals[1:] - vals[:-1]
        self.adv_buf[path_slice] = discount_cumsum(deltas, self.gamma * self.lam)
        self.ret_buf[path_slice] = discount_cumsum(rews, self.gamma)[:-1]
        self.path_start_idx = self.ptr

    def get(self):
        self.ptr, self.path_start_idx = 0, 0
        adv_mean, adv_std = self.adv_buf.mean(), self.adv_buf.std()
        self.adv_buf = (self.adv_buf - adv_mean) / (adv_std + 1e-8)
        data = dict(obs=self.obs_buf, act=self.act_buf, ret=self.ret_buf,
                    adv=self.adv_buf, logp=self.logp_buf)
        return {k: torch.as_tensor(v, dtype=torch.float32) for k, v in data.items()}


class PendulumLikeEnv:
    def __init__(self):
        self.state = None

    def reset(self):
        self.state = np.random.uniform(-1, 1, size=3).astype(np.float32)
        return self.state

    def step(self, a):
        self.state = np.clip(self.state + 0.05 * np.tanh(a[0]), -1, 1).astype(np.float32)
        return self.state, -float((self.state ** 2).sum()), False


def ppo(env_fn, actor_critic=ExerciseActorCritic, steps_per_epoch=32, epochs=2,
        clip_ratio=0.2, pi_lr=3e-4, vf_lr=1e-3, train_pi_iters=4, train_v_iters=4,
        max_ep_len=16):
    env = env_fn()
    obs_dim, act_dim = 3, 1
    ac = actor_critic(obs_dim, act_dim)
    buf = PPOBuffer(obs_dim, act_dim, steps_per_epoch)

    def compute_loss_pi(data):
        obs, act, adv, logp_old = data["obs"], data["act"], data["adv"], data["logp"]
        pi, logp = ac.pi(obs, act)
        ratio = torch.exp(logp - logp_old)
        clip_adv = torch.clamp(ratio, 1 - clip_ratio, 1 + clip_ratio) * adv
        loss_pi = -(torch.min(ratio * adv, clip_adv)).mean()
        approx_kl = (logp_old - logp).mean().item()
        ent = pi.entropy().mean().item()
        return loss_pi, dict(kl=approx_kl, ent=ent)

    def compute_loss_v(data):
        obs, ret = data["obs"], data["ret"]
        return ((ac.v(obs) - ret) ** 2).mean()

    pi_optimizer = Adam(ac.pi.parameters(), lr=pi_lr)
    vf_optimizer = Adam(ac.v.parameters(), lr=vf_lr)

    def update():
        data = buf.get()
        for i in range(train_pi_iters):
            pi_optimizer.zero_grad()
            loss_pi, pi_info = compute_loss_pi(data)
            loss_pi.backward()  # also: GG106
            pi_optimizer.step()
        for i in range(train_v_iters):
            vf_optimizer.zero_grad()
            loss_v = compute_loss_v(data)
            loss_v.backward()
            vf_optimizer.step()

    o, ep_len = env.reset(), 0
    for epoch in range(epochs):
        for t in range(steps_per_epoch):
            a, v, logp = ac.step(torch.as_tensor(o, dtype=torch.float32))
            next_o, r, d = env.step(a)
            ep_len += 1
            buf.store(o, a, r, v, logp)
            o = next_o
            timeout = ep_len == max_ep_len
            if d or timeout or t == steps_per_epoch - 1:
                _, v, _ = ac.step(torch.as_tensor(o, dtype=torch.float32))
                buf.finish_path(v)
                o, ep_len = env.reset(), 0
        update()


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    ppo(lambda: PendulumLikeEnv())


if __name__ == "__main__":
    main()
