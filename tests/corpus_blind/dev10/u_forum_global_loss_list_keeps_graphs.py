# corpus: iris-style MLP trained in a function that appends the loss tensor itself (not loss.item()) to a global list for plotting, keeping every epoch's autograd graph alive
# source: https://pydev.vn/d/114-tai-sao-chung-ta-can-goi-zero-grad-trong-pytorch
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(41)
np.random.seed(41)

final_loss = []  # global list, plotted after training


class Model(nn.Module):
    def __init__(self, in_features=4, h1=8, h2=9, out_features=3):
        super().__init__()
        self.fc1 = nn.Linear(in_features, h1)
        self.fc2 = nn.Linear(h1, h2)
        self.out = nn.Linear(h2, out_features)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.out(x)


def make_iris_like(n=90):
    centers = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.5, 2.0]])
    y = np.repeat(np.arange(3), n // 3)
    X = centers[y] + 0.3 * np.random.randn(n, 4)
    return torch.FloatTensor(X), torch.LongTensor(y)


def train(model, X_train, y_train, epochs=40):
    loss_function = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for i in range(epochs):
        i = i + 1
        y_pred = model.forward(X_train)
        loss = loss_function(y_pred, y_train)
        final_loss.append(loss)  # expect: GG301
        if i % 10 == 1:
            print('Epoch number: {} and the loss: {}'.format(i, loss.item()))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def plot_losses():
    values = [l.item() for l in final_loss]
    # plt.plot(range(len(values)), values) in the original notebook
    print("first/last loss: %.3f / %.3f" % (values[0], values[-1]))


def main():
    X_train, y_train = make_iris_like()
    model = Model()
    train(model, X_train, y_train)
    plot_losses()


if __name__ == "__main__":
    main()
