# corpus: A3C worker loop (pytorch-A3C shape): push_and_pull() clears only the global optimizer (opt.zero_grad() sets the global .grad to None), never the local net, so every loss.backward() adds onto the local gradients left by all previous pushes and the global step applies their running sum
# source: https://github.com/MorvanZhou/pytorch-A3C/issues/21
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

UPDATE_GLOBAL_ITER = 5
GAMMA = 0.9
N_S, N_A = 4, 2


def v_wrap(np_array, dtype=np.float32):
    return torch.from_numpy(np_array.astype(dtype) if np_array.dtype != dtype else np_array)


class SharedAdam(torch.optim.Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.99), eps=1e-8):
        super().__init__(params, lr=lr, betas=betas, eps=eps)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = torch.tensor(0.0)
                state["exp_avg"] = torch.zeros_like(p.data).share_memory_()
                state["exp_avg_sq"] = torch.zeros_like(p.data).share_memory_()


class Net(nn.Module):
    def __init__(self, s_dim, a_dim):
        super().__init__()
        self.pi1, self.pi2 = nn.Linear(s_dim, 32), nn.Linear(32, a_dim)
        self.v1, self.v2 = nn.Linear(s_dim, 32), nn.Linear(32, 1)

    def forward(self, x):
        return self.pi2(torch.tanh(self.pi1(x))), self.v2(torch.tanh(self.v1(x)))

    def choose_action(self, s):
        logits, _ = self.forward(s)
        return torch.distributions.Categorical(F.softmax(logits, dim=1).data).sample().numpy()[0]

    def loss_func(self, s, a, v_t):
        logits, values = self.forward(s)
        td = v_t - values
        m = torch.distributions.Categorical(F.softmax(logits, dim=1))
        return (td.pow(2) - m.log_prob(a) * td.detach().squeeze()).mean()


def push_and_pull(opt, lnet, gnet, done, s_, bs, ba, br, gamma):
    v_s_ = 0.0 if done else lnet.forward(v_wrap(s_[None, :]))[-1].data.numpy()[0, 0]
    buffer_v_target = []
    for r in br[::-1]:
        v_s_ = r + gamma * v_s_
        buffer_v_target.append(v_s_)
    buffer_v_target.reverse()
    loss = lnet.loss_func(v_wrap(np.vstack(bs)), torch.tensor(ba, dtype=torch.int64),
                          v_wrap(np.array(buffer_v_target)[:, None]))
    opt.zero_grad()  # also: GG201
    loss.backward()  # expect: GG201
    for lp, gp in zip(lnet.parameters(), gnet.parameters()):
        gp._grad = lp.grad
    opt.step()
    lnet.load_state_dict(gnet.state_dict())


class PoleEnv:
    def reset(self):
        self.t, self.s = 0, np.random.uniform(-0.05, 0.05, N_S)
        return self.s.copy()

    def step(self, a):
        self.t += 1
        self.s = self.s + 0.05 * np.array([self.s[1], 2 * a - 1, self.s[3], self.s[2] - (2 * a - 1)])
        done = abs(self.s[2]) > 0.2 or self.t >= 30
        return self.s.copy(), 1.0, done, {}


class Worker:
    def __init__(self, gnet, opt, name):
        self.name, self.gnet, self.opt = "w%02i" % name, gnet, opt
        self.lnet = Net(N_S, N_A)
        self.env = PoleEnv()

    def run(self, n_episodes):
        total_step = 1
        for ep in range(n_episodes):
            s, ep_r = self.env.reset(), 0.0
            buffer_s, buffer_a, buffer_r = [], [], []
            while True:
                a = self.lnet.choose_action(v_wrap(s[None, :]))
                s_, r, done, _ = self.env.step(a)
                ep_r += -1 if done else r
                buffer_a.append(a)
                buffer_s.append(s)
                buffer_r.append(-1 if done else r)
                if total_step % UPDATE_GLOBAL_ITER == 0 or done:
                    push_and_pull(self.opt, self.lnet, self.gnet, done, s_, buffer_s, buffer_a, buffer_r, GAMMA)
                    buffer_s, buffer_a, buffer_r = [], [], []
                    if done:
                        print(self.name, "Ep:", ep, "| Ep_r: %.0f" % ep_r)
                        break
                s = s_
                total_step += 1


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    gnet = Net(N_S, N_A)
    gnet.share_memory()
    opt = SharedAdam(gnet.parameters(), lr=1e-4, betas=(0.92, 0.999))
    workers = [Worker(gnet, opt, i) for i in range(2)]
    for w in workers:
        w.run(n_episodes=3)


if __name__ == "__main__":
    main()
