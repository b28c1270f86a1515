# corpus: dice-embeddings-style TorchTrainer with gradient_accumulation_steps=2: zero_grad runs only every 2nd batch but optimizer.step() runs after every backward, so each step re-applies the previous batch's gradient
# source: https://github.com/dice-group/dice-embeddings/issues/432
from types import SimpleNamespace

import torch
import torch.nn as nn


class AbstractTrainer:
    def __init__(self, args, callbacks):
        self.attributes = args
        self.callbacks = callbacks

    def on_fit_start(self, *args, **kwargs):
        for c in self.callbacks:
            c.on_fit_start(*args, **kwargs)

    def on_train_epoch_end(self, *args, **kwargs):
        for c in self.callbacks:
            c.on_train_epoch_end(*args, **kwargs)


class PrintCallback:
    def on_fit_start(self, trainer, model):
        print("fit start, accumulation:", trainer.attributes.gradient_accumulation_steps)

    def on_train_epoch_end(self, trainer, model):
        print("epoch loss", round(model.loss_history[-1], 5))


class DistMult(nn.Module):
    def __init__(self, num_entities=10, num_relations=3, dim=4, learning_rate=0.1):
        super().__init__()
        self.entity_embeddings = nn.Embedding(num_entities, dim)
        self.relation_embeddings = nn.Embedding(num_relations, dim)
        self.loss_function = nn.BCEWithLogitsLoss()
        self.learning_rate = learning_rate
        self.loss_history = []

    def forward(self, x):
        h = self.entity_embeddings(x[:, 0])
        r = self.relation_embeddings(x[:, 1])
        return (h * r) @ self.entity_embeddings.weight.t()  # KvsAll scores

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.learning_rate)

    def training_step(self, batch):
        x_batch, y_batch = batch
        return self.loss_function(self.forward(x_batch), y_batch)


class TorchTrainer(AbstractTrainer):
    def _run_batch(self, i, x_batch, y_batch):
        if self.attributes.gradient_accumulation_steps > 1:
            # (1) Update parameters every gradient_accumulation_steps mini-batch.
            if i % self.attributes.gradient_accumulation_steps == 0:
                self.optimizer.zero_grad(set_to_none=True)  # also: GG201
        else:
            self.optimizer.zero_grad(set_to_none=True)
        return self.compute_forward_loss_backward(x_batch, y_batch)

    def _run_epoch(self, epoch):
        epoch_loss = 0
        i = 0
        for i, (x_batch, y_batch) in enumerate(self.train_dataloaders):
            batch_loss = self._run_batch(i, x_batch, y_batch)
            epoch_loss += batch_loss
        return epoch_loss / (i + 1)

    def fit(self, model, train_dataloaders):
        self.model = model
        self.train_dataloaders = train_dataloaders
        self.optimizer = self.model.configure_optimizers()
        self.training_step = self.model.training_step
        self.on_fit_start(self, self.model)
        for epoch in range(self.attributes.max_epochs):
            avg_epoch_loss = self._run_epoch(epoch)
            self.model.loss_history.append(avg_epoch_loss)
            self.on_train_epoch_end(self, self.model)

    def compute_forward_loss_backward(self, x_batch, y_batch):
        batch_loss = self.training_step(batch=(x_batch, y_batch))
        batch_loss.backward()  # expect: GG201
        self.optimizer.step()  # also: GG201
        return batch_loss.item()


def make_kvsall_batches(n_batches=4, batch=5, num_entities=10, num_relations=3):
    batches = []
    for _ in range(n_batches):
        x = torch.stack([torch.randint(0, num_entities, (batch,)), torch.randint(0, num_relations, (batch,))], 1)
        y = (torch.rand(batch, num_entities) < 0.2).float()
        batches.append((x, y))
    return batches


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(random_seed=0, gradient_accumulation_steps=2, max_epochs=2)
    trainer = TorchTrainer(args, [PrintCallback()])
    trainer.fit(DistMult(), train_dataloaders=make_kvsall_batches())


if __name__ == "__main__":
    main()
