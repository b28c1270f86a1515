# corpus: second-order MAML meta-learner on sinusoid tasks: inner steps use torch.autograd.grad(create_graph=True) on functional fast weights, query losses of the task batch are summed and backpropagated once into the meta-parameters (correct)
# source: https://github.com/dbaranchuk/memory-efficient-maml/issues/2
import argparse
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner(nn.Module):
    def __init__(self, hidden=40):
        super().__init__()
        self.fc1 = nn.Linear(1, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)

    def functional_forward(self, x, weights):
        x = F.relu(F.linear(x, weights["fc1.weight"], weights["fc1.bias"]))
        x = F.relu(F.linear(x, weights["fc2.weight"], weights["fc2.bias"]))
        return F.linear(x, weights["out.weight"], weights["out.bias"])

    def forward(self, x):
        return self.functional_forward(x, OrderedDict(self.named_parameters()))


def sample_task_batch(meta_batch_size, k_shot, k_query):
    tasks = []
    for _ in range(meta_batch_size):
        amp = torch.empty(1).uniform_(0.1, 5.0)
        phase = torch.empty(1).uniform_(0, 3.14)
        xs = torch.empty(k_shot, 1).uniform_(-5, 5)
        xq = torch.empty(k_query, 1).uniform_(-5, 5)
        tasks.append((xs, amp * torch.sin(xs + phase), xq, amp * torch.sin(xq + phase)))
    return tasks


class Meta:
    def __init__(self, args):
        self.args = args
        self.net = Learner()
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=args.meta_lr)

    def adapt(self, x_spt, y_spt):
        fast_weights = OrderedDict(self.net.named_parameters())
        for _ in range(self.args.update_step):
            loss = F.mse_loss(self.net.functional_forward(x_spt, fast_weights), y_spt)
            grads = torch.autograd.grad(loss, fast_weights.values(), create_graph=not self.args.first_order)
            fast_weights = OrderedDict(
                (name, param - self.args.update_lr * grad)
                for ((name, param), grad) in zip(fast_weights.items(), grads)
            )
        return fast_weights

    def outer_step(self, tasks):
        losses_q = []
        for x_spt, y_spt, x_qry, y_qry in tasks:
            fast_weights = self.adapt(x_spt, y_spt)
            losses_q.append(F.mse_loss(self.net.functional_forward(x_qry, fast_weights), y_qry))
        meta_loss = torch.stack(losses_q).mean()
        self.meta_optim.zero_grad()
        meta_loss.backward()
        self.meta_optim.step()
        return meta_loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--meta_batch_size", type=int, default=4)
    parser.add_argument("--k_spt", type=int, default=10)
    parser.add_argument("--k_qry", type=int, default=10)
    parser.add_argument("--update_lr", type=float, default=0.01)
    parser.add_argument("--meta_lr", type=float, default=1e-3)
    parser.add_argument("--update_step", type=int, default=2)
    parser.add_argument("--first_order", action="store_true")
    args = parser.parse_args([])
    torch.manual_seed(0)
    maml = Meta(args)
    for step in range(args.epochs):
        tasks = sample_task_batch(args.meta_batch_size, args.k_spt, args.k_qry)
        print(f"step {step} meta query loss {maml.outer_step(tasks):.4f}")


if __name__ == "__main__":
    main()
