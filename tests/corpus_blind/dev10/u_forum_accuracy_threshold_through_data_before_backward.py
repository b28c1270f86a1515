# corpus: binary classifier whose train loop thresholds the sigmoid output in place through .data to compute accuracy before loss.backward(), corrupting the saved output so all gradients become zero
# source: http://3fwork.com/kaifa205/017332MYM031952
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

history = {"loss": [], "acc": []}


class LogisticNet(nn.Module):
    def __init__(self, in_dim=5):
        super(LogisticNet, self).__init__()
        self.linear = nn.Linear(in_dim, 8)
        self.relu = nn.ReLU()
        self.out = nn.Linear(8, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        return self.sigmoid(self.out(self.relu(self.linear(x))))


def make_data(n=64):
    X = torch.randn(n, 5)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).float().unsqueeze(1)
    return X, y


def train(model, X, y, epochs=5, lr=0.1):
    criterion = nn.BCELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for epoch in range(epochs):
        optimizer.zero_grad()
        outputs = model(X)
        loss = criterion(outputs, y)
        # accuracy of this batch
        pred = outputs.data
        pred[pred >= 0.5] = 1  # expect: GG203
        pred[pred < 0.5] = 0  # also: GG203
        acc = (pred == y).float().mean().item()
        loss.backward()
        optimizer.step()
        history["loss"].append(loss.item())
        history["acc"].append(acc)
        print("epoch %d loss %.4f acc %.3f" % (epoch, loss.item(), acc))


def main():
    X, y = make_data()
    model = LogisticNet()
    train(model, X, y)


if __name__ == "__main__":
    main()
