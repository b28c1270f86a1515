# corpus: first-order MAML meta_gradient_step (few-shot style): for every task the query loss is first backpropagated with loss.backward() (retain_graph=True dropped as "unnecessary") and then torch.autograd.grad(loss, fast_weights) walks the same, already freed graph to collect the task gradients
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/oscarknagg/few-shot/issues/29
from collections import OrderedDict
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Module
from torch.optim import Optimizer


def create_nshot_task_label(k: int, q: int) -> torch.Tensor:
    return torch.arange(0, k, 1 / q).long()


def replace_grad(parameter_gradients, parameter_name):
    def replace_grad_(module):
        return parameter_gradients[parameter_name]

    return replace_grad_


class FewShotClassifier(nn.Module):
    def __init__(self, in_features: int, k_way: int, hidden: int = 16):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.logits = nn.Linear(hidden, k_way)

    def forward(self, x):
        return self.logits(F.relu(self.fc1(x)))

    def functional_forward(self, x, weights):
        x = F.relu(F.linear(x, weights["fc1.weight"], weights["fc1.bias"]))
        return F.linear(x, weights["logits.weight"], weights["logits.bias"])


def meta_gradient_step(model: Module, optimiser: Optimizer, loss_fn: Callable, x: torch.Tensor,
                       n_shot: int, k_way: int, q_queries: int, inner_train_steps: int, inner_lr: float,
                       train: bool):
    data_shape = x.shape[2:]
    create_graph = False  # first-order MAML

    task_gradients = []
    task_losses = []
    for meta_batch in x:
        x_task_train = meta_batch[:n_shot * k_way]
        x_task_val = meta_batch[n_shot * k_way:]

        # Create a fast model using the current meta model weights
        fast_weights = OrderedDict(model.named_parameters())

        # Train the model for `inner_train_steps` iterations
        for inner_batch in range(inner_train_steps):
            y = create_nshot_task_label(k_way, n_shot)
            logits = model.functional_forward(x_task_train, fast_weights)
            loss = loss_fn(logits, y)
            gradients = torch.autograd.grad(loss, fast_weights.values(), create_graph=create_graph)
            fast_weights = OrderedDict(
                (name, param - inner_lr * grad) for ((name, param), grad) in zip(fast_weights.items(), gradients)
            )

        # Do a pass of the model on the validation data from the current task
        y = create_nshot_task_label(k_way, q_queries)
        logits = model.functional_forward(x_task_val, fast_weights)
        loss = loss_fn(logits, y)
        loss.backward()  # also: GG101

        # Accumulate losses and gradients
        task_losses.append(loss.item())
        gradients = torch.autograd.grad(loss, fast_weights.values(), create_graph=create_graph)  # expect: GG101
        named_grads = {name: g for ((name, _), g) in zip(fast_weights.items(), gradients)}
        task_gradients.append(named_grads)

    if train:
        sum_task_gradients = {k: torch.stack([grad[k] for grad in task_gradients]).mean(dim=0)
                              for k in task_gradients[0].keys()}
        hooks = []
        for name, param in model.named_parameters():
            hooks.append(param.register_hook(replace_grad(sum_task_gradients, name)))

        model.train()
        optimiser.zero_grad()
        # Dummy pass in order to create `loss` variable
        # Replace dummy gradients with mean task gradients using hooks
        logits = model(torch.zeros((k_way,) + data_shape))
        loss = loss_fn(logits, create_nshot_task_label(k_way, 1))
        loss.backward()
        optimiser.step()

        for h in hooks:
            h.remove()

    return sum(task_losses) / len(task_losses)


def main():
    torch.manual_seed(0)
    n_shot, k_way, q_queries, meta_batch_size, feat = 1, 3, 2, 2, 8
    model = FewShotClassifier(feat, k_way)
    meta_optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for episode in range(3):
        x = torch.randn(meta_batch_size, n_shot * k_way + q_queries * k_way, feat)
        meta_loss = meta_gradient_step(model, meta_optimiser, loss_fn, x, n_shot, k_way, q_queries,
                                       inner_train_steps=1, inner_lr=0.4, train=True)
        print("episode", episode, "meta loss", round(meta_loss, 4))


if __name__ == "__main__":
    main()
