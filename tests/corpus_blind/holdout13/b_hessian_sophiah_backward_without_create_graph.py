# corpus: training a small memory-transformer LM with the SophiaH optimizer (pytorch_optimizer shape): step() estimates the Hessian diagonal with Hutchinson probes, autograd.grad(p.grad, params, grad_outputs=z), but the training loop calls loss.backward() without create_graph=True, so the stored gradients have no graph to differentiate
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/kozistr/pytorch_optimizer/issues/193
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Optimizer


class BaseOptimizer:
    @staticmethod
    @torch.no_grad()
    def compute_hutchinson_hessian(param_groups, state, num_samples=1, alpha=1.0, distribution="gaussian"):
        params = [p for group in param_groups for p in group["params"] if p.requires_grad and p.grad is not None]
        if len(params) == 0:
            return
        grads = [p.grad for p in params]
        for i in range(num_samples):
            if distribution == "rademacher":
                zs = [torch.randint_like(p, 0, 1) * 2.0 - 1.0 for p in params]
            else:
                zs = [torch.randn_like(p) for p in params]
            h_zs = torch.autograd.grad(grads, params, grad_outputs=zs, retain_graph=i < num_samples - 1)  # also: GG202
            for h_z, z, p in zip(h_zs, zs, params):
                state[p]["hessian"].add_(h_z * z, alpha=alpha / num_samples)


class SophiaH(Optimizer, BaseOptimizer):
    def __init__(self, params, lr=6e-2, betas=(0.96, 0.99), weight_decay=0.0, p=1e-2,
                 update_period=2, num_samples=1, hessian_distribution="gaussian"):
        defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay, p=p)
        super().__init__(params, defaults)
        self.update_period = update_period
        self.num_samples = num_samples
        self.distribution = hessian_distribution
        self._step = 0

    @torch.no_grad()
    def step(self, closure=None):
        if self._step % self.update_period == 0:
            for group in self.param_groups:
                for p in group["params"]:
                    if len(self.state[p]) == 0:
                        self.state[p]["momentum"] = torch.zeros_like(p)
                        self.state[p]["hessian"] = torch.zeros_like(p)
            self.compute_hutchinson_hessian(self.param_groups, self.state, self.num_samples, 1.0, self.distribution)
        self._step += 1
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if group["weight_decay"] > 0.0:
                    p.mul_(1.0 - group["lr"] * group["weight_decay"])
                momentum, hessian = self.state[p]["momentum"], self.state[p]["hessian"]
                momentum.mul_(beta1).add_(p.grad, alpha=1.0 - beta1)
                update = (momentum / torch.clip(hessian, min=group["p"])).clamp_(-1.0, 1.0)
                p.add_(update, alpha=-group["lr"])


class MemTransformerLM(nn.Module):
    def __init__(self, n_token=32, d_model=16, n_head=2, n_mem=2):
        super().__init__()
        self.emb = nn.Embedding(n_token, d_model)
        self.mem = nn.Parameter(torch.randn(n_mem, d_model) * 0.02)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.n_head, self.d_head = n_head, d_model // n_head
        self.ff = nn.Sequential(nn.Linear(d_model, 32), nn.Tanh(), nn.Linear(32, d_model))
        self.out = nn.Linear(d_model, n_token)

    def forward(self, data, target):
        h = self.emb(data)
        mem = self.mem.unsqueeze(0).expand(h.size(0), -1, -1)
        kv = torch.cat([mem, h], dim=1)
        q = self.qkv(h)[..., :h.size(-1)]
        k, v = self.qkv(kv)[..., h.size(-1):].chunk(2, dim=-1)
        q, k, v = (t.view(t.size(0), t.size(1), self.n_head, self.d_head).transpose(1, 2) for t in (q, k, v))
        attn_prob = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.d_head), dim=-1)
        h = h + (attn_prob @ v).transpose(1, 2).flatten(2)
        h = h + self.ff(h)
        return F.cross_entropy(self.out(h).flatten(0, 1), target.flatten())


def get_batches(n_batches=4, bsz=4, tgt_len=8, n_token=32):
    data = torch.randint(0, n_token, (n_batches, bsz, tgt_len + 1))
    return [(d[:, :-1], d[:, 1:]) for d in data]


def train(model, optimizer, args):
    model.train()
    train_loss = 0.0
    for batch, (data, target) in enumerate(get_batches()):
        model.zero_grad()
        loss = model(data, target)
        loss.backward()  # expect: GG202
        torch.nn.utils.clip_grad_norm_(model.parameters(), args["clip"])
        optimizer.step()  # also: GG202
        train_loss += loss.item()
        if batch % args["log_interval"] == 0:
            print(f"batch {batch} | loss {loss.item():.3f} | ppl {math.exp(loss.item()):.2f}")
    return train_loss


def main():
    torch.manual_seed(0)
    args = {"optim": "sophiah", "lr": 6e-2, "clip": 0.25, "log_interval": 1}
    model = MemTransformerLM()
    if args["optim"].lower() == "sophiah":
        optimizer = SophiaH(model.parameters(), lr=args["lr"], betas=(0.96, 0.99), p=0.01, weight_decay=1e-1)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=args["lr"])
    train(model, optimizer, args)


if __name__ == "__main__":
    main()
