# corpus: MAML Meta.forward adapts functional fast_weights with autograd.grad(create_graph=True), sums the per-task query losses of the last inner step and backprops that once per meta-step
# source: https://github.com/dragen1860/MAML-Pytorch/issues/26
from types import SimpleNamespace

import numpy as np
import torch
from torch import nn, optim
from torch.nn import functional as F


class Learner(nn.Module):
    def __init__(self, d_in, hidden, n_way):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(hidden, d_in) * 0.3), nn.Parameter(torch.zeros(hidden)),
            nn.Parameter(torch.randn(n_way, hidden) * 0.3), nn.Parameter(torch.zeros(n_way)),
        ])

    def forward(self, x, vars=None):
        if vars is None:
            vars = self.vars
        w1, b1, w2, b2 = vars
        return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)

    def parameters(self, recurse=True):
        return self.vars


class Meta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr, self.update_step = args.update_lr, args.update_step
        self.net = Learner(args.d_in, 32, args.n_way)
        self.meta_optim = optim.Adam(self.net.parameters(), lr=args.meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num, querysz = x_spt.size(0), x_qry.size(1)
        losses_q = [0 for _ in range(self.update_step + 1)]
        corrects = [0 for _ in range(self.update_step + 1)]

        for i in range(task_num):
            logits = self.net(x_spt[i], vars=None)
            loss = F.cross_entropy(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters(), create_graph=True)
            fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, self.net.parameters())))

            with torch.no_grad():
                logits_q = self.net(x_qry[i], self.net.parameters())
                corrects[0] += torch.eq(logits_q.argmax(dim=1), y_qry[i]).sum().item()

            for k in range(1, self.update_step + 1):
                if k > 1:
                    logits = self.net(x_spt[i], fast_weights)
                    loss = F.cross_entropy(logits, y_spt[i])
                    grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
                    fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, fast_weights)))
                logits_q = self.net(x_qry[i], fast_weights)
                loss_q = F.cross_entropy(logits_q, y_qry[i])
                losses_q[k] += loss_q
                with torch.no_grad():
                    corrects[k] += torch.eq(logits_q.argmax(dim=1), y_qry[i]).sum().item()

        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        return np.array(corrects) / (querysz * task_num)


def sample_tasks(args):
    centers = torch.randn(args.task_num, args.n_way, args.d_in) * 2
    y_spt = torch.arange(args.n_way).repeat(args.task_num, args.k_spt)
    y_qry = torch.arange(args.n_way).repeat(args.task_num, args.k_qry)
    x_spt = torch.stack([centers[t][y_spt[t]] for t in range(args.task_num)]) + torch.randn(args.task_num, y_spt.size(1), args.d_in)
    x_qry = torch.stack([centers[t][y_qry[t]] for t in range(args.task_num)]) + torch.randn(args.task_num, y_qry.size(1), args.d_in)
    return x_spt, y_spt, x_qry, y_qry


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(update_lr=0.4, meta_lr=1e-3, n_way=3, k_spt=2, k_qry=4, task_num=4, update_step=3, d_in=5)
    maml = Meta(args)
    for step in range(6):
        accs = maml(*sample_tasks(args))
        if step % 3 == 0:
            print("step:", step, "\ttraining acc:", np.round(accs, 3))


if __name__ == "__main__":
    main()
