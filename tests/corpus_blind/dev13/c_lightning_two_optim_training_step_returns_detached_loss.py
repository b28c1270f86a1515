# corpus: LightningModule-style recommender with two optimizers stepped at different intervals (dense tower every batch, embedding tables every few batches); training_step detaches its whole output dict for logging and returns the detached total as "loss", so the trainer's backward has no graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/7405
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoTowerRecommender(nn.Module):
    def __init__(self, n_users=50, n_items=80, dim=16, emb_every_n_steps=4):
        super().__init__()
        self.user_emb = nn.Embedding(n_users, dim)
        self.item_emb = nn.Embedding(n_items, dim)
        self.tower = nn.Sequential(nn.Linear(2 * dim, 32), nn.ReLU(), nn.Linear(32, 1))
        self.emb_every_n_steps = emb_every_n_steps

    def forward(self, users, items):
        z = torch.cat([self.user_emb(users), self.item_emb(items)], dim=-1)
        return self.tower(z).squeeze(-1)

    def training_step(self, batch, batch_idx):
        users, items, clicks = batch
        logits = self(users, items)
        bce = F.binary_cross_entropy_with_logits(logits, clicks)
        l2 = 1e-4 * (self.user_emb(users).pow(2).sum() + self.item_emb(items).pow(2).sum())
        losses = {"loss": bce + l2, "bce": bce, "l2": l2}
        outputs = {k: v.detach() for k, v in losses.items()}  # expect: GG106
        return {"loss": outputs["loss"], "log": outputs}

    def configure_optimizers(self):
        dense = torch.optim.Adam(self.tower.parameters(), lr=1e-3)
        sparse = torch.optim.SGD(list(self.user_emb.parameters()) + list(self.item_emb.parameters()), lr=0.1)
        return [dense, sparse]

    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_idx):
        # step the dense tower every batch, the embedding tables every n batches
        if optimizer_idx == 0 or (batch_idx + 1) % self.emb_every_n_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


class Trainer:
    def __init__(self, max_epochs=1):
        self.max_epochs = max_epochs
        self.history = []

    def backward(self, loss):
        loss.backward()  # also: GG106

    def fit(self, module, loader):
        optimizers = module.configure_optimizers()
        for opt in optimizers:
            opt.zero_grad()
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(loader):
                out = module.training_step(batch, batch_idx)
                self.backward(out["loss"])
                for opt_idx, opt in enumerate(optimizers):
                    module.optimizer_step(epoch, batch_idx, opt, opt_idx)
                self.history.append({k: v.item() for k, v in out["log"].items()})
        return self.history


def make_loader(n_batches=8, batch_size=32):
    g = torch.Generator().manual_seed(0)
    return [(torch.randint(0, 50, (batch_size,), generator=g),
             torch.randint(0, 80, (batch_size,), generator=g),
             (torch.rand(batch_size, generator=g) < 0.3).float()) for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    model = TwoTowerRecommender()
    history = Trainer(max_epochs=2).fit(model, make_loader())
    print("final bce", history[-1]["bce"])


if __name__ == "__main__":
    main()
