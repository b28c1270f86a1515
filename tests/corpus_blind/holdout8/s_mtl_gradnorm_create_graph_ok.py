# corpus: GradNorm multi-task regression: weighted loss backpropagated with retain_graph, per-task gradient norms on the last shared layer via autograd.grad(retain_graph=True, create_graph=True), GradNorm loss differentiated w.r.t. the task weights, weights renormalised (correct)
# source: https://github.com/hosseinshn/GradNorm/issues/3
import argparse

import torch
import torch.nn as nn


class MTLNet(nn.Module):
    def __init__(self, in_dim=10, hidden=32):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.tower1 = nn.Sequential(nn.Linear(hidden, 16), nn.ReLU(), nn.Linear(16, 1))
        self.tower2 = nn.Sequential(nn.Linear(hidden, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        h = self.shared(x)
        return self.tower1(h), self.tower2(h)


class GradNormTrainer:
    def __init__(self, args):
        self.args = args
        self.model = MTLNet()
        self.task_weights = nn.Parameter(torch.ones(2))
        self.opt_model = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.opt_weights = torch.optim.Adam([self.task_weights], lr=args.lr)
        self.loss_fn = nn.MSELoss()
        self.l01 = None
        self.l02 = None

    def train_step(self, x, y1, y2):
        out1, out2 = self.model(x)
        l1 = self.loss_fn(out1, y1)
        l2 = self.loss_fn(out2, y2)
        if self.l01 is None:
            self.l01, self.l02 = l1.detach(), l2.detach()

        loss = self.task_weights[0] * l1 + self.task_weights[1] * l2
        self.opt_model.zero_grad()
        self.opt_weights.zero_grad()
        loss.backward(retain_graph=True)

        last_shared = self.model.shared[2].weight
        g1r = torch.autograd.grad(l1, last_shared, retain_graph=True, create_graph=True)
        g1 = torch.norm(self.task_weights[0] * g1r[0], 2)
        g2r = torch.autograd.grad(l2, last_shared, retain_graph=True, create_graph=True)
        g2 = torch.norm(self.task_weights[1] * g2r[0], 2)
        g_avg = (g1 + g2).detach() / 2

        lhat1 = l1.detach() / self.l01
        lhat2 = l2.detach() / self.l02
        lhat_avg = (lhat1 + lhat2) / 2
        inv_rate1 = lhat1 / lhat_avg
        inv_rate2 = lhat2 / lhat_avg
        c1 = (g_avg * inv_rate1 ** self.args.alpha).detach()
        c2 = (g_avg * inv_rate2 ** self.args.alpha).detach()
        lgrad = torch.abs(g1 - c1) + torch.abs(g2 - c2)
        self.task_weights.grad = torch.autograd.grad(lgrad, self.task_weights)[0]

        self.opt_weights.step()
        self.opt_model.step()
        with torch.no_grad():
            coef = 2 / self.task_weights.sum()
            self.task_weights.mul_(coef)
        return l1.item(), l2.item(), lgrad.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--alpha", type=float, default=0.12)
    parser.add_argument("--epochs", type=int, default=4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = GradNormTrainer(args)
    x = torch.randn(32, 10)
    y1 = x[:, :1] * 2.0
    y2 = torch.sin(x[:, 1:2]) * 10.0
    w0 = trainer.model.shared[0].weight.detach().clone()
    for epoch in range(args.epochs):
        l1, l2, lg = trainer.train_step(x, y1, y2)
        print(epoch, round(l1, 4), round(l2, 4), round(lg, 4), trainer.task_weights.data.tolist())
    assert not torch.equal(w0, trainer.model.shared[0].weight)


if __name__ == "__main__":
    main()
