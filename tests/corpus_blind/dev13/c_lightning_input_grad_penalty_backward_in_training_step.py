# corpus: LightningModule-style text classifier with an input-gradient (saliency) penalty: training_step calls ce.backward() itself to read the embedding gradient, then returns ce + penalty, and the trainer's own backward walks the cross-entropy graph a second time
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/1771
import torch
import torch.nn as nn
import torch.nn.functional as F


class GradRegularizedClassifier(nn.Module):
    def __init__(self, vocab_size=200, embed_dim=32, n_classes=3, penalty_weight=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.encoder = nn.Sequential(nn.Linear(embed_dim, 64), nn.Tanh())
        self.classifier = nn.Linear(64, n_classes)
        self.penalty_weight = penalty_weight

    def forward_from_embeddings(self, emb, mask):
        h = self.encoder(emb)
        pooled = (h * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        return self.classifier(pooled)

    def training_step(self, batch, batch_idx):
        tokens, mask, labels = batch
        emb = self.embed(tokens)
        emb.retain_grad()
        logits = self.forward_from_embeddings(emb, mask)
        ce = F.cross_entropy(logits, labels)
        ce.backward()  # expect: GG101
        saliency = emb.grad.norm(dim=-1)
        penalty = (saliency * mask).sum() / mask.sum()
        loss = ce + self.penalty_weight * penalty
        acc = (logits.argmax(-1) == labels).float().mean()
        return {"loss": loss, "progress_bar": {"acc": acc.item(), "penalty": penalty.item()}}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class Trainer:
    def __init__(self, max_epochs=1, gradient_clip_val=1.0):
        self.max_epochs = max_epochs
        self.gradient_clip_val = gradient_clip_val

    def backward(self, loss, optimizer):
        loss.backward()  # also: GG101

    def run_training_batch(self, module, optimizer, batch, batch_idx):
        output = module.training_step(batch, batch_idx)
        optimizer.zero_grad()
        self.backward(output["loss"], optimizer)
        torch.nn.utils.clip_grad_norm_(module.parameters(), self.gradient_clip_val)
        optimizer.step()
        return output["progress_bar"]

    def fit(self, module, loader):
        optimizer = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            bars = [self.run_training_batch(module, optimizer, b, i) for i, b in enumerate(loader)]
            print(f"epoch {epoch}: acc {sum(b['acc'] for b in bars) / len(bars):.3f}")


def make_loader(n_batches=4, batch_size=8, seq_len=12, vocab_size=200):
    g = torch.Generator().manual_seed(0)
    loader = []
    for _ in range(n_batches):
        tokens = torch.randint(1, vocab_size, (batch_size, seq_len), generator=g)
        lengths = torch.randint(4, seq_len + 1, (batch_size,), generator=g)
        mask = (torch.arange(seq_len).unsqueeze(0) < lengths.unsqueeze(1)).float()
        labels = tokens[:, 0] % 3
        loader.append((tokens, mask, labels))
    return loader


def main():
    torch.manual_seed(0)
    Trainer(max_epochs=2).fit(GradRegularizedClassifier(), make_loader())


if __name__ == "__main__":
    main()
