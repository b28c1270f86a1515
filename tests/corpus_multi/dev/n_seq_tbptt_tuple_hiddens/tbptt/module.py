import torch.nn as nn
import torch.nn.functional as F


class LSTMLanguageModel(nn.Module):
    """Word-level LM written against a Lightning-style `training_step(batch, idx, hiddens)` API."""

    def __init__(self, vocab_size=20, embed_dim=8, hidden_dim=16, truncated_bptt_steps=4):
        super().__init__()
        self.truncated_bptt_steps = truncated_bptt_steps
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True)
        self.decoder = nn.Linear(hidden_dim, vocab_size)

    def forward(self, tokens, hiddens=None):
        out, hiddens = self.lstm(self.embed(tokens), hiddens)
        return self.decoder(out), hiddens

    def tbptt_split_batch(self, batch, split_size):
        tokens, targets = batch
        return [
            (tokens[:, t:t + split_size], targets[:, t:t + split_size])
            for t in range(0, tokens.size(1), split_size)
        ]

    def training_step(self, batch, split_idx, hiddens):
        tokens, targets = batch
        logits, hiddens = self(tokens, hiddens)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
        return {"loss": loss, "hiddens": hiddens}
