# corpus: gradient accumulation trainer zeroes once before the loop and again only after each optimizer.step() (correct)
# source: https://discuss.pytorch.org/t/pytorch-gradient-accumulation/55955
import copy

import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class AccumTrainer:
    def __init__(self, model, accumulation_steps=3, lr=0.1):
        self.model = model
        self.accumulation_steps = accumulation_steps
        self.loss_function = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.lr = lr
        self.updates = 0

    def train(self, training_set):
        self.model.train()
        self.model.zero_grad()  # Reset gradients tensors
        running = 0.0
        for i, (inputs, labels) in enumerate(training_set):
            predictions = self.model(inputs)  # Forward pass
            loss = self.loss_function(predictions, labels)  # Compute loss function
            loss = loss / self.accumulation_steps  # Normalize our loss (if averaged)
            loss.backward()  # Backward pass
            running += loss.item()
            if (i + 1) % self.accumulation_steps == 0:  # Wait for several backward steps
                self.optimizer.step()  # Now we can do an optimizer step
                self.model.zero_grad()  # Reset gradients tensors
                self.updates += 1
        return running


def make_set(n):
    return [(torch.randn(4, 10), torch.randint(0, 3, (4,))) for _ in range(n)]


def main():
    torch.manual_seed(0)
    trainer = AccumTrainer(Classifier())
    trainer.train(make_set(6))
    return trainer


if __name__ == "__main__":
    trainer = main()
    assert trainer.updates == 2
    # one window applies the sum of all its micro-batch gradients
    window = make_set(trainer.accumulation_steps)
    before = copy.deepcopy(trainer.model)
    trainer.train(window)
    w0 = before.fc1.weight
    grads = [torch.autograd.grad(trainer.loss_function(before(x), y) / trainer.accumulation_steps, w0)[0] for x, y in window]
    applied = (w0 - trainer.model.fc1.weight) / trainer.lr
    assert torch.allclose(applied, sum(grads), atol=1e-5)
    # keep a last backward so every parameter shows a gradient
    trainer.loss_function(trainer.model(window[0][0]), window[0][1]).backward()
    assert all(p.grad is not None for p in trainer.model.parameters())
