# corpus: MAML meta-learner with functional fast weights: outer_step logs the query-gradient norm with torch.autograd.grad(query_loss, fast weights) and then calls backward on the same query loss, whose graph that grad call already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/tristandeleu/pytorch-meta/issues/89
import argparse
from collections import OrderedDict, namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

Task = namedtuple("Task", ["support_x", "support_y", "query_x", "query_y"])


class ConvNetLite(nn.Module):
    def __init__(self, in_dim=8, hidden=16, ways=3):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, ways)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class MetaLearner:
    def __init__(self, args):
        self.args = args
        self.model = ConvNetLite(ways=args.ways)
        self.meta_optimizer = torch.optim.Adam(self.model.parameters(), lr=args.meta_lr)
        self.stats = {"query_loss": [], "grad_norm": []}

    def functional_forward(self, x, params):
        return functional_call(self.model, params, (x,))

    def adapt(self, x, y):
        params = OrderedDict(self.model.named_parameters())
        for _ in range(self.args.inner_steps):
            inner_loss = F.cross_entropy(self.functional_forward(x, params), y)
            grads = torch.autograd.grad(inner_loss, list(params.values()), create_graph=not self.args.first_order)
            params = OrderedDict(
                (name, p - self.args.inner_lr * g) for (name, p), g in zip(params.items(), grads)
            )
        return params

    def outer_step(self, tasks):
        self.meta_optimizer.zero_grad()
        for task in tasks:
            fast_weights = self.adapt(task.support_x, task.support_y)
            query_loss = F.cross_entropy(self.functional_forward(task.query_x, fast_weights), task.query_y)
            # per-task diagnostics: norm of the query gradient at the adapted weights
            q_grads = torch.autograd.grad(query_loss, list(fast_weights.values()))
            self.stats["grad_norm"].append(torch.sqrt(sum(g.pow(2).sum() for g in q_grads)).item())
            self.stats["query_loss"].append(query_loss.item())
            (query_loss / len(tasks)).backward()  # expect: GG101
        self.meta_optimizer.step()


def sample_tasks(args):
    tasks = []
    for _ in range(args.meta_batch):
        tasks.append(
            Task(
                torch.randn(args.ways * args.shots, 8),
                torch.arange(args.ways).repeat(args.shots),
                torch.randn(args.ways * 2, 8),
                torch.arange(args.ways).repeat(2),
            )
        )
    return tasks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ways", type=int, default=3)
    parser.add_argument("--shots", type=int, default=2)
    parser.add_argument("--meta_batch", type=int, default=2)
    parser.add_argument("--inner_steps", type=int, default=1)
    parser.add_argument("--inner_lr", type=float, default=0.4)
    parser.add_argument("--meta_lr", type=float, default=1e-3)
    parser.add_argument("--first_order", action="store_true")
    parser.add_argument("--iterations", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    learner = MetaLearner(args)
    for it in range(args.iterations):
        learner.outer_step(sample_tasks(args))
        print(it, sum(learner.stats["query_loss"][-args.meta_batch:]) / args.meta_batch)


if __name__ == "__main__":
    main()
