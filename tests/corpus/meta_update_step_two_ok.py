# corpus: the same MAML-style learner with update_step=2: the last query loss comes from the inner loop with the fast weights, and the meta backward trains (correct)
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def meta_step(net, optimizer, x, y, update_step, lr=0.4):
    losses_q = [0 for _ in range(update_step + 1)]
    loss = F.cross_entropy(net(x), y)
    grads = torch.autograd.grad(loss, list(net.parameters()), create_graph=True)
    fast = [p - lr * g for p, g in zip(net.parameters(), grads)]
    with torch.no_grad():
        losses_q[0] = F.cross_entropy(net(x), y)
        losses_q[1] = F.cross_entropy(F.linear(x, fast[0], fast[1]), y)
    for k in range(1, update_step):
        out = F.linear(x, fast[0], fast[1])
        losses_q[k + 1] = F.cross_entropy(out, y)
    optimizer.zero_grad()
    losses_q[-1].backward()
    optimizer.step()


parser = argparse.ArgumentParser()
parser.add_argument("--update_step", type=int, default=2)
parser.add_argument("--meta_lr", type=float, default=1e-3)
args = parser.parse_args(args=[])
torch.manual_seed(0)
net = nn.Linear(4, 3)
optimizer = torch.optim.Adam(net.parameters(), lr=args.meta_lr)
meta_step(net, optimizer, torch.randn(8, 4), torch.randint(0, 3, (8,)), args.update_step)
