# corpus: a trainer weights a reduction="none" loss per sample and backpropagates the weighted vector
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn

torch.manual_seed(0)


class Trainer:
    def __init__(self, model, reduction="none"):
        self.model = model
        self.criterion = nn.CrossEntropyLoss(reduction=reduction)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def weights(self, targets):
        return torch.rand(targets.shape[0]) + 0.5

    def step(self, x, y):
        per_sample = self.criterion(self.model(x), y)
        loss = per_sample * self.weights(y)
        self.optimizer.zero_grad()
        loss.backward()  # expect: GG109
        self.optimizer.step()


data = [(torch.randn(5, 4), torch.randint(0, 3, (5,))) for _ in range(2)]
trainer = Trainer(nn.Linear(4, 3))
for x, y in data:
    trainer.step(x, y)
