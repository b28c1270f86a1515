# corpus: Trainer class whose update() helper applies a manual SGD step to leaf tensors with requires_grad while autograd records (in-place op on a leaf)
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: docs/rules/GG108.md (shape: 1)
import torch


class LinearRegressionTrainer:
    def __init__(self, params, lr=0.1):
        self.params = params
        self.lr = lr
        self.history = []

    def compute_loss(self, batch):
        x, y = batch
        w, b = self.params
        return ((x @ w + b - y) ** 2).mean()

    def update(self):
        for p in self.params:
            p -= self.lr * p.grad  # expect: GG108
            p.grad.zero_()

    def train_step(self, batch):
        loss = self.compute_loss(batch)
        loss.backward()
        self.update()
        return loss.item()

    def fit(self, batches, epochs=2):
        for epoch in range(epochs):
            for batch in batches:
                self.history.append(self.train_step(batch))
        return self.history


def main():
    torch.manual_seed(0)
    w = torch.randn(3, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(3)]
    trainer = LinearRegressionTrainer([w, b], lr=0.1)
    return trainer.fit(batches)


if __name__ == "__main__":
    main()
