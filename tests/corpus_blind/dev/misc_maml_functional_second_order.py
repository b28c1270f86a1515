# corpus: second-order MAML learner with explicit fast-weight lists: inner autograd.grad with create_graph=True, query losses summed over tasks and one meta backward (correct)
# source: https://github.com/dragen1860/MAML-Pytorch/issues/17
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Learner(nn.Module):
    def __init__(self, n_in=5, n_hidden=16, n_way=3):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(n_hidden, n_in) * 0.3), nn.Parameter(torch.zeros(n_hidden)),
            nn.Parameter(torch.randn(n_way, n_hidden) * 0.3), nn.Parameter(torch.zeros(n_way)),
        ])

    def forward(self, x, vars=None):
        w1, b1, w2, b2 = self.vars if vars is None else vars
        return F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2)


class Meta(nn.Module):
    def __init__(self, update_lr=0.4, meta_lr=1e-3, update_step=2):
        super().__init__()
        self.net = Learner()
        self.update_lr = update_lr
        self.update_step = update_step
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=meta_lr)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        losses_q = []
        corrects = 0
        for i in range(task_num):
            fast_weights = list(self.net.parameters())
            for _ in range(self.update_step):
                logits = self.net(x_spt[i], fast_weights)
                loss = F.cross_entropy(logits, y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
                fast_weights = [w - self.update_lr * g for w, g in zip(fast_weights, grad)]
            logits_q = self.net(x_qry[i], fast_weights)
            losses_q.append(F.cross_entropy(logits_q, y_qry[i]))
            with torch.no_grad():
                corrects += (logits_q.argmax(dim=1) == y_qry[i]).sum().item()
        loss_q = torch.stack(losses_q).sum() / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        return loss_q.item(), corrects / (task_num * x_qry.size(1))


def main():
    maml = Meta()
    history = []
    for _ in range(3):
        x_spt, y_spt = torch.randn(4, 6, 5), torch.randint(0, 3, (4, 6))
        x_qry, y_qry = torch.randn(4, 9, 5), torch.randint(0, 3, (4, 9))
        history.append(maml(x_spt, y_spt, x_qry, y_qry))
    assert all(p.grad is not None for p in maml.net.parameters())
    assert all(isinstance(loss, float) and isinstance(acc, float) for loss, acc in history)


if __name__ == "__main__":
    main()
