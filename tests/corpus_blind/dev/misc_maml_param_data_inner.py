# corpus: MAML meta-learner adapts a deepcopy of the model by writing param.data -= lr * grad, which cuts the inner step out of autograd so the meta-model never receives a gradient
# source: https://github.com/KanishJebaMathewM/Truxify/issues/13118
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)


class RegressionNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(1, 24)
        self.out = nn.Linear(24, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


class MetaModel:
    def __init__(self, model, inner_lr=0.05, outer_lr=1e-3, inner_steps=2):
        self.model = model
        self.inner_lr = inner_lr
        self.inner_steps = inner_steps
        self.criterion = nn.MSELoss()
        self.meta_optimizer = torch.optim.Adam(self.model.parameters(), lr=outer_lr)

    def inner_update(self, support_x, support_y):
        adapted_model = copy.deepcopy(self.model)
        for _ in range(self.inner_steps):
            loss = self.criterion(adapted_model(support_x), support_y)
            grads = torch.autograd.grad(loss, adapted_model.parameters(), create_graph=True)
            for param, grad in zip(adapted_model.parameters(), grads):
                param.data -= self.inner_lr * grad  # expect: GG203
        return adapted_model

    def outer_update(self, meta_loss):
        self.meta_optimizer.zero_grad()
        meta_loss.backward()  # also: GG203
        self.meta_optimizer.step()

    def meta_train_step(self, tasks):
        meta_loss = 0.0
        for support_x, support_y, query_x, query_y in tasks:
            adapted_model = self.inner_update(support_x, support_y)
            task_loss = self.criterion(adapted_model(query_x), query_y)
            meta_loss = meta_loss + task_loss
        meta_loss = meta_loss / len(tasks)
        self.outer_update(meta_loss)
        return meta_loss.item()


def sample_sine_task(k=10):
    amp = torch.empty(1).uniform_(0.5, 2.0)
    phase = torch.empty(1).uniform_(0, 3.14)
    xs = torch.empty(2 * k, 1).uniform_(-3, 3)
    ys = amp * torch.sin(xs + phase)
    return xs[:k], ys[:k], xs[k:], ys[k:]


def main():
    net = RegressionNet()
    meta = MetaModel(net)
    before = [p.detach().clone() for p in net.parameters()]
    for _ in range(3):
        meta.meta_train_step([sample_sine_task() for _ in range(4)])
    assert all(p.grad is None for p in net.parameters())  # ground truth: meta-model got no gradient
    assert all(torch.equal(b, p) for b, p in zip(before, net.parameters()))  # ground truth: never updated


if __name__ == "__main__":
    main()
