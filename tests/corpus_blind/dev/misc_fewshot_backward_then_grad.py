# corpus: few-shot MAML meta-batch step calls loss.backward() on the query loss and then autograd.grad on the same loss for the per-task gradients, without retain_graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/oscarknagg/few-shot/issues/6
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class FewShotClassifier(nn.Module):
    def __init__(self, n_in=8, k_way=3):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 16)
        self.logits = nn.Linear(16, k_way)

    def forward(self, x):
        return self.logits(F.relu(self.fc1(x)))

    def functional_forward(self, x, weights):
        x = F.relu(F.linear(x, weights["fc1.weight"], weights["fc1.bias"]))
        return F.linear(x, weights["logits.weight"], weights["logits.bias"])


def meta_gradient_step(model, optimiser, loss_fn, tasks, inner_train_steps, inner_lr, order):
    create_graph = order == 2
    task_gradients = []
    task_losses = []
    for x_task_train, y_task_train, x_task_val, y_task_val in tasks:
        fast_weights = OrderedDict(model.named_parameters())
        for inner_batch in range(inner_train_steps):
            logits = model.functional_forward(x_task_train, fast_weights)
            loss = loss_fn(logits, y_task_train)
            gradients = torch.autograd.grad(loss, fast_weights.values(), create_graph=create_graph)
            fast_weights = OrderedDict(
                (name, param - inner_lr * grad)
                for ((name, param), grad) in zip(fast_weights.items(), gradients)
            )
        logits = model.functional_forward(x_task_val, fast_weights)
        loss = loss_fn(logits, y_task_val)
        loss.backward()  # expect: GG101
        task_losses.append(loss.item())
        gradients = torch.autograd.grad(loss, fast_weights.values(), create_graph=create_graph)  # also: GG101
        named_grads = {name: g for ((name, _), g) in zip(fast_weights.items(), gradients)}
        task_gradients.append(named_grads)
    sum_task_gradients = {k: torch.stack([grad[k] for grad in task_gradients]).mean(dim=0) for k in task_gradients[0]}
    optimiser.zero_grad()
    for name, param in model.named_parameters():
        param.grad = sum_task_gradients[name]
    optimiser.step()
    return sum(task_losses) / len(task_losses)


def main():
    model = FewShotClassifier()
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    tasks = [(torch.randn(6, 8), torch.randint(0, 3, (6,)), torch.randn(9, 8), torch.randint(0, 3, (9,))) for _ in range(2)]
    meta_gradient_step(model, optimiser, nn.CrossEntropyLoss(), tasks, inner_train_steps=1, inner_lr=0.4, order=1)


if __name__ == "__main__":
    main()
