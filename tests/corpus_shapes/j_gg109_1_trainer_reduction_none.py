# corpus: Trainer stores an MSELoss(reduction="none") criterion in __init__ and train_step backpropagates the per-element loss returned by compute_loss
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: docs/rules/GG109.md (shape: 1)
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.criterion = nn.MSELoss(reduction="none")
        self.per_sample = []

    def compute_loss(self, batch):
        x, y = batch
        return self.criterion(self.model(x), y)

    def train_step(self, batch):
        loss = self.compute_loss(batch)
        self.per_sample.append(loss.detach().squeeze(1))
        self.optimizer.zero_grad()
        loss.backward()  # expect: GG109
        self.optimizer.step()

    def fit(self, batches, epochs=1):
        for epoch in range(epochs):
            for batch in batches:
                self.train_step(batch)
        return torch.cat(self.per_sample)


torch.manual_seed(0)
model = nn.Linear(4, 1)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
print(trainer.fit([(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)]))
