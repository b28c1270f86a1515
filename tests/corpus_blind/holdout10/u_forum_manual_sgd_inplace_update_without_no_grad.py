# corpus: linear regression from scratch with a train_model method that updates leaf weights in place (w -= lr * w.grad) outside torch.no_grad()
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation
# source: https://hao-yiwen.github.io/yiwen-blog-website/en/docs/ai/frameworks/pytorch/common-errors
import numpy as np
import torch

torch.manual_seed(0)
np.random.seed(0)

losses = []


def make_data(n=64):
    true_w = torch.tensor([[2.0], [-3.4], [1.5]])
    true_b = 4.2
    X = torch.randn(n, 3)
    y = X @ true_w + true_b + 0.01 * torch.randn(n, 1)
    return X, y


class LinearRegressionScratch:
    def __init__(self, n_features):
        self.w = torch.normal(0, 0.01, size=(n_features, 1), requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)

    def forward(self, X):
        return X @ self.w + self.b

    def squared_loss(self, y_hat, y):
        return ((y_hat - y) ** 2 / 2).mean()

    def train_model(self, X, y, lr=0.03, epochs=3, batch_size=16):
        n = X.shape[0]
        for epoch in range(epochs):
            perm = torch.randperm(n)
            for start in range(0, n, batch_size):
                idx = perm[start:start + batch_size]
                y_hat = self.forward(X[idx])
                loss = self.squared_loss(y_hat, y[idx])
                loss.backward()
                # gradient descent step
                self.w -= lr * self.w.grad  # expect: GG108
                self.b -= lr * self.b.grad  # also: GG108
                self.w.grad.zero_()
                self.b.grad.zero_()
                losses.append(loss.item())
            print("epoch %d, loss %.4f" % (epoch + 1, np.mean(losses[-4:])))


def main():
    X, y = make_data()
    model = LinearRegressionScratch(3)
    model.train_model(X, y)
    print("w:", model.w.detach().numpy().ravel(), "b:", model.b.item())


if __name__ == "__main__":
    main()
