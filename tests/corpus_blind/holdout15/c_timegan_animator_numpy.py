# corpus: PyTorch TimeGAN for financial time series logs the per-epoch autoencoder loss by handing the loss tensor (still requiring grad) to a plotting Animator, which converts it with .numpy().
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
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
                v = v.numpy()  # expect: GG110
            self.Y[i].append(float(np.asarray(v)))


class Embedder(nn.Module):
    def __init__(self, n_features, hidden):
        super().__init__()
        self.rnn = nn.GRU(n_features, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, hidden)

    def forward(self, X):
        H, _ = self.rnn(X)
        return torch.sigmoid(self.fc(H))


class Recovery(nn.Module):
    def __init__(self, hidden, n_features):
        super().__init__()
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, n_features)

    def forward(self, H):
        out, _ = self.rnn(H)
        return self.fc(out)


embedding = Embedder(3, 8)
recovery = Recovery(8, 3)
embedding_optimiser = torch.optim.Adam(embedding.parameters(), lr=1e-3)
recovery_optimiser = torch.optim.Adam(recovery.parameters(), lr=1e-3)


def reset_gradients():
    embedding_optimiser.zero_grad()
    recovery_optimiser.zero_grad()


def make_loader(n_batches=2, batch=4, seq_len=6, n_features=3):
    return [(torch.rand(batch, seq_len, n_features), torch.zeros(batch)) for _ in range(n_batches)]


def train_autoencoder(train_loader, num_epochs):
    animator = Animator(xlabel='epoch', ylabel='loss', legend=['autoencoder'])
    for epoch in range(1, num_epochs + 1):
        for X, _ in train_loader:
            reset_gradients()
            H = embedding(X.float())
            X_tilde = recovery(H)
            E_loss_T0 = F.mse_loss(X, X_tilde)
            E_loss0 = 10 * torch.sqrt(E_loss_T0)
            E_loss0.backward()
            embedding_optimiser.step()
            recovery_optimiser.step()
        animator.add(epoch, (E_loss_T0, 0))  # also: GG110
    return animator


def main():
    torch.manual_seed(0)
    animator = train_autoencoder(make_loader(), num_epochs=2)
    print("autoencoder curve:", animator.Y[0])


if __name__ == "__main__":
    main()
