# corpus: model class with a train_model method that already does backward+step; the epoch loop in main (copied from a tutorial) calls loss.backward() again on the returned loss
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://discuss.pytorch.org/t/runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the-buffers-have-already-been-freed-specify-retain-graph-true-when-calling-backward-the-first-time/6795/2
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
np.random.seed(0)

loss_history = []


class HousePriceNet(nn.Module):
    def __init__(self, n_features):
        super(HousePriceNet, self).__init__()
        self.fc1 = nn.Linear(n_features, 16)
        self.fc2 = nn.Linear(16, 1)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))

    def train_model(self, x, y, optimizer, criterion):
        self.train()
        optimizer.zero_grad()
        pred = self(x)
        loss = criterion(pred, y)
        loss.backward()
        optimizer.step()
        return loss


def load_data(n=48, n_features=5):
    X = np.random.rand(n, n_features).astype(np.float32)
    y = (X @ np.arange(1, n_features + 1, dtype=np.float32)).reshape(-1, 1)
    return torch.from_numpy(X), torch.from_numpy(y)


def main():
    X, y = load_data()
    model = HousePriceNet(X.shape[1])
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    for epoch in range(3):
        for i in range(0, len(X), 16):
            loss = model.train_model(X[i:i + 16], y[i:i + 16], optimizer, criterion)
            loss.backward()  # expect: GG101
            loss_history.append(loss.item())
        print("epoch", epoch, "loss", np.mean(loss_history[-3:]))


if __name__ == "__main__":
    main()
