# corpus: second-order MAML meta_gradient_step: inner updates use autograd.grad(create_graph=True) on fast weights, each task's query loss is appended to task_losses, and the stacked mean is backpropagated once per meta batch (through the inner updates) before optimiser.step(); predictions are kept detached; correct
# source: https://github.com/oscarknagg/few-shot/issues/9
from collections import OrderedDict
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Module
from torch.optim import Optimizer


def create_nshot_task_label(k: int, q: int) -> torch.Tensor:
    return torch.arange(0, k, 1 / q).long()


class FewShotClassifier(nn.Module):
    def __init__(self, in_features: int, k_way: int, hidden: int = 16):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.logits = nn.Linear(hidden, k_way)

    def forward(self, x):
        return self.logits(torch.tanh(self.fc1(x)))

    def functional_forward(self, x, weights):
        x = torch.tanh(F.linear(x, weights["fc1.weight"], weights["fc1.bias"]))
        return F.linear(x, weights["logits.weight"], weights["logits.bias"])


def meta_gradient_step(model: Module, optimiser: Optimizer, loss_fn: Callable, x: torch.Tensor,
                       n_shot: int, k_way: int, q_queries: int, inner_train_steps: int, inner_lr: float,
                       train: bool):
    create_graph = train  # second-order MAML while training

    task_losses = []
    task_predictions = []
    for meta_batch in x:
        x_task_train = meta_batch[:n_shot * k_way]
        x_task_val = meta_batch[n_shot * k_way:]

        fast_weights = OrderedDict(model.named_parameters())
        for inner_batch in range(inner_train_steps):
            y = create_nshot_task_label(k_way, n_shot)
            logits = model.functional_forward(x_task_train, fast_weights)
            loss = loss_fn(logits, y)
            gradients = torch.autograd.grad(loss, fast_weights.values(), create_graph=create_graph)
            fast_weights = OrderedDict(
                (name, param - inner_lr * grad) for ((name, param), grad) in zip(fast_weights.items(), gradients)
            )

        y = create_nshot_task_label(k_way, q_queries)
        logits = model.functional_forward(x_task_val, fast_weights)
        loss = loss_fn(logits, y)

        task_predictions.append(logits.softmax(dim=1).detach())
        task_losses.append(loss)

    model.train()
    optimiser.zero_grad()
    meta_batch_loss = torch.stack(task_losses).mean()
    if train:
        meta_batch_loss.backward()
        optimiser.step()
    return meta_batch_loss.item(), torch.cat(task_predictions)


def categorical_accuracy(y, y_pred):
    return torch.eq(y_pred.argmax(dim=-1), y).sum().item() / y_pred.shape[0]


def main():
    torch.manual_seed(0)
    n_shot, k_way, q_queries, meta_batch_size, feat = 1, 3, 2, 2, 8
    model = FewShotClassifier(feat, k_way)
    meta_optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    history = []
    for episode in range(3):
        x = torch.randn(meta_batch_size, n_shot * k_way + q_queries * k_way, feat)
        meta_loss, y_pred = meta_gradient_step(model, meta_optimiser, loss_fn, x, n_shot, k_way, q_queries,
                                               inner_train_steps=2, inner_lr=0.4, train=True)
        y = create_nshot_task_label(k_way, q_queries).repeat(meta_batch_size)
        history.append({"loss": meta_loss, "acc": categorical_accuracy(y, y_pred)})
        print(episode, history[-1])


if __name__ == "__main__":
    main()
