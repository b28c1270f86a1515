# corpus: fast.ai-style update() does `a.sub_(lr * a.grad)` and `a.grad.zero_()` inside torch.no_grad() (correct)
# source: https://mlkatas.com/kata/23
import torch


class LineFitter:
    def __init__(self, lr=0.1, n=100):
        self.x = torch.ones(n, 2)
        self.x[:, 0].uniform_(-1.0, 1.0)
        self.y = self.x @ torch.tensor([3.0, 2.0]) + 0.1 * torch.randn(n)
        self.a = torch.tensor([-1.0, 1.0], requires_grad=True)
        self.lr = lr
        self.losses = []

    @staticmethod
    def mse(y_hat, y):
        return ((y_hat - y) ** 2).mean()

    def update(self, t):
        y_hat = self.x @ self.a
        loss = self.mse(y_hat, self.y)
        if t % 10 == 0:
            self.losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            self.a.sub_(self.lr * self.a.grad)
            self.a.grad.zero_()


def main():
    torch.manual_seed(0)
    fitter = LineFitter()
    for t in range(100):
        fitter.update(t)
    return fitter


if __name__ == "__main__":
    fitter = main()
    # ground truth: the leaf stayed a leaf, kept no graph, and converged towards [3, 2]
    assert fitter.a.is_leaf and fitter.a.grad_fn is None and fitter.a.requires_grad
    assert torch.allclose(fitter.a.detach(), torch.tensor([3.0, 2.0]), atol=0.2)
    assert fitter.losses[-1] < fitter.losses[0]
