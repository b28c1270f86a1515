# corpus: from-scratch linear regression class updates its own requires_grad weights with `-=` outside torch.no_grad()
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://discuss.pytorch.org/t/leaf-variable-was-used-in-an-inplace-operation/308/2
import torch


class LinearRegressionScratch:
    def __init__(self, num_inputs, lr=0.03, sigma=0.01):
        self.w = torch.normal(0, sigma, (num_inputs, 1), requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)
        self.lr = lr

    def forward(self, X):
        return X @ self.w + self.b

    def loss(self, y_hat, y):
        return ((y_hat - y.reshape(y_hat.shape)) ** 2 / 2).mean()

    def step(self):
        for param in (self.w, self.b):
            param -= self.lr * param.grad  # expect: GG108
            param.grad.zero_()


def synthetic_data(w, b, num_examples):
    X = torch.randn(num_examples, len(w))
    y = X @ w + b + 0.01 * torch.randn(num_examples)
    return X, y.reshape(-1, 1)


def fit(model, X, y, epochs=3, batch_size=10):
    for epoch in range(epochs):
        for i in range(0, len(X), batch_size):
            l = model.loss(model.forward(X[i:i + batch_size]), y[i:i + batch_size])
            l.backward()
            model.step()  # also: GG108


if __name__ == "__main__":
    torch.manual_seed(0)
    X, y = synthetic_data(torch.tensor([2.0, -3.4]), 4.2, 50)
    fit(LinearRegressionScratch(2), X, y)
