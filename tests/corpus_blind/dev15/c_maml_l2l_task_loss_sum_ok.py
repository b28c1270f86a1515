# corpus: Second-order MAML controller training: each task clones the learner functionally, adapts with create_graph=True, and the query losses are summed over tasks into meta_train_loss, which is backpropagated once per meta-iteration.
# source: https://github.com/learnables/learn2learn/issues/236
import torch
import torch.nn as nn
import torch.nn.functional as F


class Controller(nn.Module):
    def __init__(self, n_in=4, hidden=16, n_out=3):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.fc2 = nn.Linear(hidden, n_out)

    def forward(self, x, params=None):
        if params is None:
            params = dict(self.named_parameters())
        h = torch.relu(F.linear(x, params['fc1.weight'], params['fc1.bias']))
        return F.linear(h, params['fc2.weight'], params['fc2.bias'])


class MAML:
    def __init__(self, model, lr, first_order=False):
        self.model = model
        self.lr = lr
        self.first_order = first_order

    def clone(self):
        return {n: p for n, p in self.model.named_parameters()}

    def adapt(self, params, loss):
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=not self.first_order)
        return {n: p - self.lr * g for (n, p), g in zip(params.items(), grads)}


def make_tasks(n_tasks=3, n=8):
    tasks = {}
    for k in range(n_tasks):
        x = torch.randn(2 * n, 4)
        y = torch.randint(0, 3, (2 * n,))
        tasks['task%d' % k] = (x[:n], y[:n], x[n:], y[n:])
    return tasks


class Trainer:
    def __init__(self):
        self.model = Controller()
        self.maml = MAML(self.model, lr=0.1, first_order=False)
        self.controller_optim = torch.optim.Adam(self.maml.model.parameters(), lr=1e-3)

    def train_controller(self, name, data, adapt_steps=1):
        xs, ys, xq, yq = data
        learner = self.maml.clone()
        for _ in range(adapt_steps):
            support_loss = F.cross_entropy(self.model(xs, learner), ys)
            learner = self.maml.adapt(learner, support_loss)
        return F.cross_entropy(self.model(xq, learner), yq)

    def fit(self, meta_train_tasks, epochs=2):
        for epoch in range(epochs):
            meta_train_loss = 0.0
            for name, data in meta_train_tasks.items():
                query_loss = self.train_controller(name, data)
                meta_train_loss += query_loss
            meta_train_loss = meta_train_loss / len(meta_train_tasks)
            self.controller_optim.zero_grad()
            meta_train_loss.backward()
            self.controller_optim.step()
        return meta_train_loss.item()


def main():
    torch.manual_seed(0)
    trainer = Trainer()
    loss = trainer.fit(make_tasks())
    ok = all(p.grad is not None for p in trainer.model.parameters())
    assert ok
    print("meta loss", round(loss, 4), "grads reached params:", ok)


if __name__ == "__main__":
    main()
