# corpus: correct look-alike - hand-written gradient descent whose update() helper does a.sub_(lr * a.grad) inside torch.no_grad() and then zeroes a.grad
# source: https://discuss.pytorch.org/t/simple-understanding-of-backprop-gradient-descent/73588
import numpy as np
import torch

torch.manual_seed(0)
np.random.seed(0)

n = 100
lr = 0.1
losses = []


def make_data():
    x = torch.ones(n, 2)
    x[:, 0].uniform_(-1.0, 1.0)
    y = x @ torch.tensor([3.0, 2.0]) + 0.1 * torch.randn(n)
    return x, y


def mse(y_hat, y):
    return ((y - y_hat) ** 2).mean()


class Regressor:
    def __init__(self):
        self.a = torch.tensor([-5.0, 5.0], requires_grad=True)

    def update(self, x, y, t):
        y_hat = x @ self.a
        loss = mse(y, y_hat)
        if t % 10 == 0:
            print(t, loss.item())
        loss.backward()
        with torch.no_grad():
            self.a.sub_(lr * self.a.grad)
            self.a.grad.zero_()
        losses.append(loss.item())

    def train_model(self, x, y, steps=50):
        for t in range(steps):
            self.update(x, y, t)


def main():
    x, y = make_data()
    model = Regressor()
    model.train_model(x, y)
    print("a =", model.a.detach().numpy(), "final loss", losses[-1])


if __name__ == "__main__":
    main()
