from collections import defaultdict

import torch


class ModelTrainer:
    def __init__(self, model, loss_fn, optimizer, device="cpu"):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.device = device

    def train_one_batch(self, images, targets):
        images = images.to(self.device)
        targets = tuple(t.to(self.device) for t in targets)
        self.optimizer.zero_grad()
        predicts = self.model(images)
        loss, loss_item = self.loss_fn(predicts["Main"], targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 10.0)
        self.optimizer.step()
        return loss_item

    def train_one_epoch(self, dataloader):
        self.model.train()
        total_loss = defaultdict(lambda: torch.tensor(0.0, device=self.device))
        total_samples = 0

        for batch_size, images, targets in dataloader:
            loss_each = self.train_one_batch(images, targets)

            for loss_name, loss_val in loss_each.items():
                total_loss[loss_name] += loss_val * batch_size  # expect: GG301
            total_samples += batch_size

        for loss_val in total_loss.values():
            loss_val /= total_samples
        return total_loss

    def solve(self, dataloader, epochs):
        history = []
        for epoch in range(epochs):
            epoch_loss = self.train_one_epoch(dataloader)
            history.append(epoch_loss)
            print(f"epoch {epoch}: " + ", ".join(f"{k}={v.item():.4f}" for k, v in epoch_loss.items()))
        return history
