# corpus: RecBole-style Trainer for a GRU4Rec sequential recommender sums each batch's loss tensor (not loss.item()) into total_loss, keeping every batch's graph alive for the whole epoch
# source: https://github.com/RUCAIBox/RecBole/pull/307
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class GRU4Rec(nn.Module):
    def __init__(self, n_items, embedding_size=16, hidden_size=32):
        super().__init__()
        self.item_embedding = nn.Embedding(n_items, embedding_size, padding_idx=0)
        self.gru = nn.GRU(embedding_size, hidden_size, batch_first=True)
        self.dense = nn.Linear(hidden_size, embedding_size)

    def forward(self, item_seq, item_seq_len):
        emb = self.item_embedding(item_seq)
        out, _ = self.gru(emb)
        out = self.dense(out)
        idx = (item_seq_len - 1).view(-1, 1, 1).expand(-1, 1, out.shape[-1])
        return out.gather(1, idx).squeeze(1)

    def calculate_loss(self, interaction):
        seq_output = self.forward(interaction["item_id_list"], interaction["item_length"])
        logits = seq_output @ self.item_embedding.weight.t()
        return F.cross_entropy(logits, interaction["item_id"])


class Trainer:
    def __init__(self, config, model):
        self.config = config
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
        self.clip_grad_norm = config.clip_grad_norm

    def _train_epoch(self, train_data, epoch_idx):
        self.model.train()
        total_loss = None
        for batch_idx, interaction in enumerate(train_data):
            self.optimizer.zero_grad()
            loss = self.model.calculate_loss(interaction)
            total_loss = loss if total_loss is None else total_loss + loss  # expect: GG301
            loss.backward()
            if self.clip_grad_norm:
                nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad_norm)
            self.optimizer.step()
        return total_loss

    def fit(self, train_data, epochs):
        for epoch_idx in range(epochs):
            train_loss = self._train_epoch(train_data, epoch_idx)
            print(f"epoch {epoch_idx} training loss: {train_loss.item():.4f}")


def make_batches(n_batches, batch_size, n_items, max_len):
    batches = []
    for _ in range(n_batches):
        lengths = torch.randint(1, max_len + 1, (batch_size,))
        seqs = torch.randint(1, n_items, (batch_size, max_len))
        seqs = seqs * (torch.arange(max_len).unsqueeze(0) < lengths.unsqueeze(1))
        batches.append({"item_id_list": seqs, "item_length": lengths, "item_id": torch.randint(1, n_items, (batch_size,))})
    return batches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--clip_grad_norm", type=float, default=5.0)
    parser.add_argument("--epochs", type=int, default=2)
    config = parser.parse_args([])
    torch.manual_seed(0)
    model = GRU4Rec(n_items=50)
    trainer = Trainer(config, model)
    trainer.fit(make_batches(6, 8, 50, 7), config.epochs)


if __name__ == "__main__":
    main()
