import torch.nn as nn

from .decoder import AttentionDecoder
from .encoder import LSTMEncoder


class Seq2Seq(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, hidden_dim=12):
        super().__init__()
        self.encoder = LSTMEncoder(src_vocab, hidden_dim=hidden_dim)
        self.decoder = AttentionDecoder(tgt_vocab, hidden_dim=hidden_dim)

    def forward(self, src_tokens, prev_output_tokens):
        encoder_out = list(self.encoder(src_tokens))
        return self.decoder(prev_output_tokens, encoder_out)  # also: GG107
