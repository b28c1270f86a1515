# corpus: second-order MAML meta-learner (dragen1860/MAML-Pytorch style): inner updates use autograd.grad(..., create_graph=True) on a list of fast weights, query losses are summed across tasks and backpropagated once through the unrolled updates (correct)
# source: https://github.com/dragen1860/MAML-Pytorch/issues/19
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim


class Learner(nn.Module):
    def __init__(self, in_dim, hidden, n_way):
        super().__init__()
        self.vars = nn.ParameterList()
        w1 = nn.Parameter(torch.ones(hidden, in_dim))
        torch.nn.init.kaiming_normal_(w1)
        self.vars.append(w1)
        self.vars.append(nn.Parameter(torch.zeros(hidden)))
        w2 = nn.Parameter(torch.ones(n_way, hidden))
        torch.nn.init.kaiming_normal_(w2)
        self.vars.append(w2)
        self.vars.append(nn.Parameter(torch.zeros(n_way)))

    def forward(self, x, vars=None):
        if vars is None:
            vars = self.vars
        x = F.linear(x, vars[0], vars[1])
        x = F.relu(x, inplace=True)
        return F.linear(x, vars[2], vars[3])

    def parameters(self, recurse=True):
        return self.vars


class Meta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr = args.update_lr
        self.meta_lr = args.meta_lr
        self.update_step = args.update_step
        self.net = Learner(args.in_dim, 16, args.n_way)
        self.meta_optim = optim.Adam(self.net.parameters(), lr=self.meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        losses_q = [0 for _ in range(self.update_step + 1)]
        corrects = [0 for _ in range(self.update_step + 1)]

        for i in range(task_num):
            logits = self.net(x_spt[i], vars=None)
            loss = F.cross_entropy(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters(), create_graph=True)
            fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, self.net.parameters())))

            with torch.no_grad():
                logits_q = self.net(x_qry[i], self.net.parameters())
                losses_q[0] += F.cross_entropy(logits_q, y_qry[i])
                corrects[0] += torch.eq(logits_q.argmax(dim=1), y_qry[i]).sum().item()

            for k in range(1, self.update_step):
                logits = self.net(x_spt[i], fast_weights)
                loss = F.cross_entropy(logits, y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
                fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, fast_weights)))

            logits_q = self.net(x_qry[i], fast_weights)
            loss_q = F.cross_entropy(logits_q, y_qry[i])
            losses_q[self.update_step] += loss_q
            with torch.no_grad():
                corrects[self.update_step] += torch.eq(logits_q.argmax(dim=1), y_qry[i]).sum().item()

        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        n_qry = task_num * x_qry.size(1)
        return [corrects[0] / n_qry, corrects[self.update_step] / n_qry], loss_q.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_way", type=int, default=3)
    parser.add_argument("--k_spt", type=int, default=2)
    parser.add_argument("--k_qry", type=int, default=2)
    parser.add_argument("--task_num", type=int, default=2)
    parser.add_argument("--in_dim", type=int, default=8)
    parser.add_argument("--update_lr", type=float, default=0.4)
    parser.add_argument("--meta_lr", type=float, default=1e-3)
    parser.add_argument("--update_step", type=int, default=2)
    parser.add_argument("--epoch", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)

    maml = Meta(args)
    for step in range(args.epoch):
        x_spt = torch.randn(args.task_num, args.n_way * args.k_spt, args.in_dim)
        y_spt = torch.arange(args.n_way).repeat(args.k_spt).expand(args.task_num, -1)
        x_qry = torch.randn(args.task_num, args.n_way * args.k_qry, args.in_dim)
        y_qry = torch.arange(args.n_way).repeat(args.k_qry).expand(args.task_num, -1)
        accs, loss = maml(x_spt, y_spt, x_qry, y_qry)
        print("step:", step, "training acc:", accs, "loss:", round(loss, 4))


if __name__ == "__main__":
    main()
