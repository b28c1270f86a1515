# corpus: a trainer meant to accumulate gradients over accum_steps batches clears them before every backward, so each step uses only the last batch
import torch
import torch.nn as nn

torch.manual_seed(0)


class Trainer:
    def __init__(self, model, accum_steps=4):
        self.model = model
        self.accum_steps = accum_steps
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def train_epoch(self, batches):
        for i, (x, y) in enumerate(batches):
            self.optimizer.zero_grad()  # expect: GG201
            loss = nn.functional.cross_entropy(self.model(x), y) / self.accum_steps
            loss.backward()
            if (i + 1) % self.accum_steps == 0:
                self.optimizer.step()


trainer = Trainer(nn.Linear(6, 3))
trainer.train_epoch([(torch.randn(4, 6), torch.randint(0, 3, (4,))) for _ in range(8)])
