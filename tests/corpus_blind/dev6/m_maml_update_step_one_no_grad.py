# corpus: MAML few-shot image classifier (Meta learner over a functional Learner); with update_step=1 the inner k-loop never runs, so the meta loss losses_q[-1] is the query loss accumulated inside the torch.no_grad() evaluation block, and the meta backward has no graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/dragen1860/MAML-Pytorch/issues/40
import argparse

import numpy as np
import torch
from torch import nn, optim
from torch.nn import functional as F


class Learner(nn.Module):
    def __init__(self, n_way, imgc=1, imgsz=14):
        super().__init__()
        self.vars = nn.ParameterList()
        w = nn.Parameter(torch.ones(8, imgc, 3, 3))
        torch.nn.init.kaiming_normal_(w)
        self.vars.append(w)
        self.vars.append(nn.Parameter(torch.zeros(8)))
        feat = 8 * ((imgsz - 3) // 2 + 1) ** 2
        w = nn.Parameter(torch.ones(n_way, feat))
        torch.nn.init.kaiming_normal_(w)
        self.vars.append(w)
        self.vars.append(nn.Parameter(torch.zeros(n_way)))

    def forward(self, x, vars=None, bn_training=True):
        if vars is None:
            vars = self.vars
        w, b = vars[0], vars[1]
        x = F.relu(F.conv2d(x, w, b, stride=2, padding=0))
        x = x.view(x.size(0), -1)
        w, b = vars[2], vars[3]
        return F.linear(x, w, b)

    def parameters(self):
        return self.vars


class Meta(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.update_lr = args.update_lr
        self.meta_lr = args.meta_lr
        self.n_way = args.n_way
        self.k_spt = args.k_spt
        self.k_qry = args.k_qry
        self.task_num = args.task_num
        self.update_step = args.update_step
        self.net = Learner(args.n_way, args.imgc, args.imgsz)
        self.meta_optim = optim.Adam(self.net.parameters(), lr=self.meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        querysz = x_qry.size(1)

        losses_q = [0 for _ in range(self.update_step + 1)]  # losses_q[i] is the loss on step i
        corrects = [0 for _ in range(self.update_step + 1)]

        for i in range(task_num):
            # 1. run the i-th task and compute loss for k=0
            logits = self.net(x_spt[i], vars=None, bn_training=True)
            loss = F.cross_entropy(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters(), create_graph=True)
            fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, self.net.parameters())))

            # this is the loss and accuracy before first update
            with torch.no_grad():
                logits_q = self.net(x_qry[i], self.net.parameters(), bn_training=True)
                loss_q = F.cross_entropy(logits_q, y_qry[i])
                losses_q[0] += loss_q
                pred_q = F.softmax(logits_q, dim=1).argmax(dim=1)
                correct = torch.eq(pred_q, y_qry[i]).sum().item()
                corrects[0] = corrects[0] + correct

            # this is the loss and accuracy after the first update
            with torch.no_grad():
                logits_q = self.net(x_qry[i], fast_weights, bn_training=True)
                loss_q = F.cross_entropy(logits_q, y_qry[i])
                losses_q[1] += loss_q
                pred_q = F.softmax(logits_q, dim=1).argmax(dim=1)
                correct = torch.eq(pred_q, y_qry[i]).sum().item()
                corrects[1] = corrects[1] + correct

            for k in range(1, self.update_step):
                # 1. run the i-th task and compute loss for k=1~K-1
                logits = self.net(x_spt[i], fast_weights, bn_training=True)
                loss = F.cross_entropy(logits, y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
                fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, fast_weights)))

                logits_q = self.net(x_qry[i], fast_weights, bn_training=True)
                loss_q = F.cross_entropy(logits_q, y_qry[i])
                losses_q[k + 1] += loss_q

                with torch.no_grad():
                    pred_q = F.softmax(logits_q, dim=1).argmax(dim=1)
                    correct = torch.eq(pred_q, y_qry[i]).sum().item()
                    corrects[k + 1] = corrects[k + 1] + correct

        # end of all tasks
        # sum over all losses on query set across all tasks
        loss_q = losses_q[-1] / task_num

        # optimize theta parameters
        self.meta_optim.zero_grad()
        loss_q.backward()  # expect: GG106
        self.meta_optim.step()

        accs = np.array(corrects) / (querysz * task_num)
        return accs


def main():
    argparser = argparse.ArgumentParser()
    argparser.add_argument("--n_way", type=int, default=5)
    argparser.add_argument("--k_spt", type=int, default=1)
    argparser.add_argument("--k_qry", type=int, default=3)
    argparser.add_argument("--imgsz", type=int, default=14)
    argparser.add_argument("--imgc", type=int, default=1)
    argparser.add_argument("--task_num", type=int, default=2)
    argparser.add_argument("--meta_lr", type=float, default=1e-3)
    argparser.add_argument("--update_lr", type=float, default=0.4)
    argparser.add_argument("--update_step", type=int, default=1)
    args = argparser.parse_args([])

    torch.manual_seed(222)
    maml = Meta(args)
    for step in range(2):
        x_spt = torch.randn(args.task_num, args.n_way * args.k_spt, args.imgc, args.imgsz, args.imgsz)
        y_spt = torch.arange(args.n_way).repeat(args.task_num, args.k_spt)
        x_qry = torch.randn(args.task_num, args.n_way * args.k_qry, args.imgc, args.imgsz, args.imgsz)
        y_qry = torch.arange(args.n_way).repeat(args.task_num, args.k_qry)
        accs = maml(x_spt, y_spt, x_qry, y_qry)
        print("step:", step, "\ttraining acc:", accs)


if __name__ == "__main__":
    main()
