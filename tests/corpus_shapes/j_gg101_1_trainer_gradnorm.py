# corpus: Trainer logs the gradient norm with autograd.grad inside a helper, then train_step backpropagates the same loss again
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG101.md (shape: 1)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, log_every=1):
        self.model = model
        self.optimizer = optimizer
        self.log_every = log_every
        self.step_count = 0
        self.grad_norms = []

    def compute_loss(self, batch):
        x, y = batch
        return F.mse_loss(self.model(x), y)

    def log_grad_norm(self, loss):
        params = [p for p in self.model.parameters() if p.requires_grad]
        grads = torch.autograd.grad(loss, params)
        total = torch.sqrt(sum(g.pow(2).sum() for g in grads))
        self.grad_norms.append(total.item())

    def train_step(self, batch):
        self.optimizer.zero_grad()
        loss = self.compute_loss(batch)
        if self.step_count % self.log_every == 0:
            self.log_grad_norm(loss)
        loss.backward()  # expect: GG101
        self.optimizer.step()
        self.step_count += 1
        return loss.item()

    def fit(self, batches, epochs=2):
        history = []
        for epoch in range(epochs):
            for batch in batches:
                history.append(self.train_step(batch))
        return history


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(3)]
trainer = Trainer(model, opt)
print(trainer.fit(batches))
