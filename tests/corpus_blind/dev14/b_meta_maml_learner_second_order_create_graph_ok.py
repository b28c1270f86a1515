# corpus: MAML Meta learner (MAML-Pytorch meta.py shape: Learner with functional forward(x, vars), fast_weights list, per-step query losses_q/corrects lists): the inner-loop gradients are taken with create_graph=True so the query loss backpropagates through the inner updates (second order), the per-task query losses are summed into one meta loss and backpropagated once per meta-batch, and accuracies use .item(); correct
# source: https://github.com/dragen1860/MAML-Pytorch/issues/59
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    def __init__(self, in_dim=16, hidden=32, n_way=5):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(hidden, in_dim) * 0.1), nn.Parameter(torch.zeros(hidden)),
            nn.Parameter(torch.randn(n_way, hidden) * 0.1), nn.Parameter(torch.zeros(n_way))])

    def forward(self, x, vars=None):
        if vars is None:
            vars = self.vars
        w1, b1, w2, b2 = vars
        return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)

    def parameters(self, recurse=True):
        return self.vars


class Meta(nn.Module):
    def __init__(self, update_lr=0.4, meta_lr=1e-3, update_step=3, n_way=5):
        super().__init__()
        self.update_lr, self.update_step = update_lr, update_step
        self.net = Learner(n_way=n_way)
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num, querysz = x_spt.size(0), x_qry.size(1)
        losses_q = [0 for _ in range(self.update_step + 1)]
        corrects = [0 for _ in range(self.update_step + 1)]
        for i in range(task_num):
            logits = self.net(x_spt[i], vars=None)
            loss = F.cross_entropy(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters(), create_graph=True)
            fast_weights = [p - self.update_lr * g for g, p in zip(grad, self.net.parameters())]
            with torch.no_grad():
                pred_q = F.softmax(self.net(x_qry[i], self.net.parameters()), dim=1).argmax(dim=1)
                corrects[0] += torch.eq(pred_q, y_qry[i]).sum().item()
            for k in range(1, self.update_step + 1):
                logits = self.net(x_spt[i], fast_weights)
                loss = F.cross_entropy(logits, y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
                fast_weights = [p - self.update_lr * g for g, p in zip(grad, fast_weights)]
                logits_q = self.net(x_qry[i], fast_weights)
                losses_q[k] = losses_q[k] + F.cross_entropy(logits_q, y_qry[i])
                with torch.no_grad():
                    corrects[k] += torch.eq(logits_q.argmax(dim=1), y_qry[i]).sum().item()
        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        return np.array(corrects) / (querysz * task_num), loss_q.item()


def sample_tasks(task_num=4, n_way=5, k_spt=1, k_qry=3, dim=16):
    protos = torch.randn(task_num, n_way, dim)
    def draw(k):
        y = torch.arange(n_way).repeat(k)
        x = protos[:, y] + 0.3 * torch.randn(task_num, len(y), dim)
        return x, y.unsqueeze(0).repeat(task_num, 1)
    (x_spt, y_spt), (x_qry, y_qry) = draw(k_spt), draw(k_qry)
    return x_spt, y_spt, x_qry, y_qry


def main():
    torch.manual_seed(0)
    maml = Meta()
    for step in range(3):
        accs, loss_q = maml(*sample_tasks())
        print(f"step: {step} training acc: {np.round(accs, 3)} loss: {loss_q:.4f}")


if __name__ == "__main__":
    main()
