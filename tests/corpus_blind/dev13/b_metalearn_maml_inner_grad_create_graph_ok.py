# corpus: MAML-Pytorch Meta learner with the report's fix applied: the inner-loop torch.autograd.grad calls pass create_graph=True, the fast weights are built from those gradients, the query losses of all tasks are summed and backpropagated once to the meta-parameters (second-order MAML); correct
# source: https://github.com/dragen1860/MAML-Pytorch/issues/63
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim


class Learner(nn.Module):
    def __init__(self, n_way, imgc=1, imgsz=8):
        super().__init__()
        self.vars = nn.ParameterList()
        w = nn.Parameter(torch.ones(8, imgc, 3, 3))
        nn.init.kaiming_normal_(w)
        self.vars.append(w)
        self.vars.append(nn.Parameter(torch.zeros(8)))
        w = nn.Parameter(torch.ones(n_way, 8 * (imgsz // 2) ** 2))
        nn.init.kaiming_normal_(w)
        self.vars.append(w)
        self.vars.append(nn.Parameter(torch.zeros(n_way)))

    def forward(self, x, vars=None, bn_training=True):
        if vars is None:
            vars = self.vars
        x = F.conv2d(x, vars[0], vars[1], padding=1)
        x = F.max_pool2d(F.relu(x), 2)
        return F.linear(x.flatten(1), vars[2], vars[3])

    def parameters(self, recurse=True):
        return self.vars


class Meta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr, self.meta_lr = args.update_lr, args.meta_lr
        self.n_way, self.task_num, self.update_step = args.n_way, args.task_num, args.update_step
        self.net = Learner(args.n_way, args.imgc, args.imgsz)
        self.meta_optim = optim.Adam(self.net.parameters(), lr=self.meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        querysz = x_qry.size(1)
        losses_q = [0 for _ in range(self.update_step + 1)]
        corrects = [0 for _ in range(self.update_step + 1)]
        for i in range(task_num):
            logits = self.net(x_spt[i], vars=None, bn_training=True)
            loss = F.cross_entropy(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters(), create_graph=True)
            fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, self.net.parameters())))
            with torch.no_grad():
                logits_q = self.net(x_qry[i], self.net.parameters(), bn_training=True)
                losses_q[0] += F.cross_entropy(logits_q, y_qry[i])
                corrects[0] += torch.eq(logits_q.argmax(dim=1), y_qry[i]).sum().item()
            logits_q = self.net(x_qry[i], fast_weights, bn_training=True)
            losses_q[1] += F.cross_entropy(logits_q, y_qry[i])
            corrects[1] += torch.eq(logits_q.argmax(dim=1), y_qry[i]).sum().item()
            for k in range(1, self.update_step):
                logits = self.net(x_spt[i], fast_weights, bn_training=True)
                loss = F.cross_entropy(logits, y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
                fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, fast_weights)))
                logits_q = self.net(x_qry[i], fast_weights, bn_training=True)
                losses_q[k + 1] += F.cross_entropy(logits_q, y_qry[i])
                corrects[k + 1] += torch.eq(logits_q.argmax(dim=1), y_qry[i]).sum().item()
        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        return np.array(corrects) / (querysz * task_num)


def sample_tasks(args):
    shape = (args.task_num, args.n_way * args.k_spt, args.imgc, args.imgsz, args.imgsz)
    x_spt = torch.randn(*shape)
    y_spt = torch.arange(args.n_way).repeat_interleave(args.k_spt).repeat(args.task_num, 1)
    x_qry = x_spt + 0.1 * torch.randn(*shape)
    return x_spt, y_spt, x_qry, y_spt.clone()


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    argparser = argparse.ArgumentParser()
    argparser.add_argument("--n_way", type=int, default=3)
    argparser.add_argument("--k_spt", type=int, default=2)
    argparser.add_argument("--imgc", type=int, default=1)
    argparser.add_argument("--imgsz", type=int, default=8)
    argparser.add_argument("--task_num", type=int, default=2)
    argparser.add_argument("--meta_lr", type=float, default=1e-3)
    argparser.add_argument("--update_lr", type=float, default=0.4)
    argparser.add_argument("--update_step", type=int, default=3)
    args = argparser.parse_args([])
    maml = Meta(args)
    for step in range(4):
        accs = maml(*sample_tasks(args))
        print("step:", step, "training acc:", accs)


if __name__ == "__main__":
    main()
