# corpus: GRU next-item recommender trained on parallel user click streams; the trainer carries self.hidden from batch to batch without detaching it and, following the "RNNs need retain_graph" advice, calls loss.backward(retain_graph=True), so the second batch's backward reaches the first batch's graph, whose GRU weights optimizer.step() already changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://errorhandle.ai/how-does-pytorch-s-loss-backward-work-when-retain-graph-true-is-specified
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ClickStreams:
    """n_streams users, each a long sequence of item ids, served in consecutive windows."""

    def __init__(self, n_items=100, n_streams=8, length=61, window=6, seed=0):
        rng = np.random.RandomState(seed)
        self.window = window
        self.streams = torch.from_numpy(rng.randint(1, n_items, size=(n_streams, length)))

    def __iter__(self):
        for start in range(0, self.streams.shape[1] - 1 - self.window, self.window):
            inputs = self.streams[:, start:start + self.window]
            targets = self.streams[:, start + 1:start + 1 + self.window]
            yield inputs, targets


class GRURecommender(nn.Module):
    def __init__(self, n_items=100, emb_dim=24, hidden_dim=48):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.item_emb = nn.Embedding(n_items, emb_dim, padding_idx=0)
        self.gru = nn.GRU(emb_dim, hidden_dim, batch_first=True)
        self.out = nn.Linear(hidden_dim, n_items)

    def init_hidden(self, batch_size):
        return torch.zeros(1, batch_size, self.hidden_dim)

    def forward(self, items, hidden):
        seq, hidden = self.gru(self.item_emb(items), hidden)
        return self.out(seq), hidden


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.hidden = None

    def recall_at_k(self, logits, targets, k=10):
        topk = logits.topk(k, dim=-1).indices
        return (topk == targets.unsqueeze(-1)).any(-1).float().mean().item()

    def train_epoch(self, streams):
        self.model.train()
        self.hidden = self.model.init_hidden(streams.streams.shape[0])
        losses, recalls = [], []
        for inputs, targets in streams:
            logits, self.hidden = self.model(inputs, self.hidden)  # also: GG302
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            self.optimizer.zero_grad()
            loss.backward(retain_graph=True)  # expect: GG302
            self.optimizer.step()
            losses.append(loss.item())
            recalls.append(self.recall_at_k(logits.detach(), targets))
        return float(np.mean(losses)), float(np.mean(recalls))


def main():
    torch.manual_seed(0)
    trainer = Trainer(GRURecommender())
    streams = ClickStreams()
    for epoch in range(2):
        loss, recall = trainer.train_epoch(streams)
        print(f"epoch {epoch}: loss {loss:.4f} recall@10 {recall:.3f}")


if __name__ == "__main__":
    main()
