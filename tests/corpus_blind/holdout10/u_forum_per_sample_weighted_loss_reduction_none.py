# corpus: classifier trained with per-sample weights via CrossEntropyLoss(reduction='none'); the weighted loss vector is passed straight to backward()
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://www.pythonclear.com/errors/runtimeerror-grad-can-be-implicitly-created-only-for-scalar-outputs/
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

epoch_losses = []


class Classifier(nn.Module):
    def __init__(self, in_dim=6, hidden=16, n_classes=3):
        super(Classifier, self).__init__()
        self.layer1 = nn.Linear(in_dim, hidden)
        self.act = nn.ReLU()
        self.layer2 = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.layer2(self.act(self.layer1(x)))


def compute_sample_weights(labels, n_classes=3):
    # rare classes get a bigger weight
    counts = np.bincount(labels.numpy(), minlength=n_classes).astype(np.float32)
    inv = 1.0 / np.maximum(counts, 1.0)
    w = inv[labels.numpy()]
    return torch.from_numpy(w / w.mean())


def train_epoch(model, X, y, weights, optimizer, criterion, batch_size=8):
    running = 0.0
    for i in range(0, len(X), batch_size):
        xb, yb, wb = X[i:i + batch_size], y[i:i + batch_size], weights[i:i + batch_size]
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb) * wb
        loss.backward()  # expect: GG109
        optimizer.step()
        running += loss.sum().item()
    return running / len(X)


def main():
    X = torch.randn(40, 6)
    y = torch.tensor(np.random.choice(3, size=40, p=[0.7, 0.2, 0.1]))
    weights = compute_sample_weights(y)
    model = Classifier()
    criterion = nn.CrossEntropyLoss(reduction='none')
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        epoch_losses.append(train_epoch(model, X, y, weights, optimizer, criterion))
        print("epoch", epoch, "weighted loss", epoch_losses[-1])


if __name__ == "__main__":
    main()
