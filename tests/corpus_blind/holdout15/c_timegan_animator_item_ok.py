# corpus: PyTorch TimeGAN for financial time series logs the per-epoch supervisor loss as loss.detach().item() before handing it to the plotting Animator, so no graph-carrying tensor is converted.
# source: https://github.com/sanj909/Timeseries-GANs/pull/1
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Animator:
    """Stand-in for d2l.Animator: keeps the curves that matplotlib would draw."""

    def __init__(self, xlabel, ylabel, legend):
        self.xlabel, self.ylabel, self.legend = xlabel, ylabel, legend
        self.X, self.Y = [], [[] for _ in legend]

    def add(self, x, y):
        self.X.append(x)
        while len(self.Y) < len(y):
            self.Y.append([])
        for i, v in enumerate(y):
            if isinstance(v, torch.Tensor):
                v = v.numpy()
            self.Y[i].append(float(np.asarray(v)))


class Embedder(nn.Module):
    def __init__(self, n_features, hidden):
        super().__init__()
        self.rnn = nn.GRU(n_features, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, hidden)

    def forward(self, X):
        H, _ = self.rnn(X)
        return torch.sigmoid(self.fc(H))


class Supervisor(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, hidden)

    def forward(self, H):
        out, _ = self.rnn(H)
        return torch.sigmoid(self.fc(out))


embedding = Embedder(3, 8)
supervisor = Supervisor(8)
supervisor_optimiser = torch.optim.Adam(supervisor.parameters(), lr=1e-3)


def reset_gradients():
    embedding.zero_grad()
    supervisor_optimiser.zero_grad()


def make_loader(n_batches=2, batch=4, seq_len=6, n_features=3):
    return [(torch.rand(batch, seq_len, n_features), torch.zeros(batch)) for _ in range(n_batches)]


def train_supervisor(train_loader, num_epochs):
    animator = Animator(xlabel='epoch', ylabel='loss', legend=['supervisor'])
    for epoch in range(1, num_epochs + 1):
        for X, _ in train_loader:
            reset_gradients()
            H = embedding(X.float())
            H_hat_supervise = supervisor(H)
            G_loss_S = F.mse_loss(H[:, 1:, :], H_hat_supervise[:, :-1, :])
            G_loss_S.backward()
            supervisor_optimiser.step()
        animator.add(epoch, (G_loss_S.detach().item(), 0))
    return animator


def main():
    torch.manual_seed(0)
    animator = train_supervisor(make_loader(), num_epochs=2)
    ok = all(p.grad is not None for p in supervisor.parameters())
    assert ok
    print("supervisor curve:", [round(v, 5) for v in animator.Y[0]], "grads reached params:", ok)


if __name__ == "__main__":
    main()
