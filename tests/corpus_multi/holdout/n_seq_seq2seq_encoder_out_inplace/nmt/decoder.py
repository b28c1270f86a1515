import torch
import torch.nn as nn
import torch.nn.functional as F


class AttentionDecoder(nn.Module):
    def __init__(self, vocab_size, embed_dim=8, hidden_dim=12, n_gated=3):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.cell = nn.LSTMCell(embed_dim + hidden_dim, hidden_dim)
        self.out = nn.Linear(2 * hidden_dim, vocab_size)
        # per-feature gates applied to the encoder states before attending
        self.feature_gate = nn.Parameter(torch.zeros(n_gated))

    def reweight_encoder_out(self, encoder_out):
        for j in range(self.feature_gate.numel()):
            encoder_out[0][:, :, j] = torch.sigmoid(self.feature_gate[j]) * encoder_out[0][:, :, j]  # expect: GG107
        return encoder_out

    def forward(self, prev_output_tokens, encoder_out):
        encoder_out = self.reweight_encoder_out(encoder_out)
        enc_states, h, c = encoder_out
        h, c = h[-1], c[-1]
        context = enc_states.mean(dim=1)
        emb = self.embed(prev_output_tokens)
        logits = []
        for t in range(prev_output_tokens.size(1)):
            h, c = self.cell(torch.cat([emb[:, t], context], dim=-1), (h, c))
            scores = torch.bmm(enc_states, h.unsqueeze(2)).squeeze(2)
            attn = F.softmax(scores, dim=-1)
            context = torch.bmm(attn.unsqueeze(1), enc_states).squeeze(1)
            logits.append(self.out(torch.cat([h, context], dim=-1)))
        return torch.stack(logits, dim=1)
