import torch
import torch.nn as nn


class LSTMEncoder(nn.Module):
    def __init__(self, vocab_size, embed_dim=8, hidden_dim=12):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True)
        self.output_proj = nn.Linear(hidden_dim, hidden_dim)

    def forward(self, src_tokens):
        outs, (h, c) = self.lstm(self.embed(src_tokens))
        encoder_outs = torch.tanh(self.output_proj(outs))
        return encoder_outs, h, c
