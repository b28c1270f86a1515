# corpus: custom attention layer initialises its nn.Parameter tensors with .normal_()/.zero_() in __init__ while grad mode is on
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/chunhuizhang/bilibili_vlogs
import torch
import torch.nn as nn
import torch.nn.functional as F


class AdditiveAttention(nn.Module):
    def __init__(self, query_dim, key_dim, hidden):
        super().__init__()
        self.W_q = nn.Parameter(torch.empty(query_dim, hidden))
        self.W_k = nn.Parameter(torch.empty(key_dim, hidden))
        self.v = nn.Parameter(torch.empty(hidden))
        self.bias = nn.Parameter(torch.empty(hidden))
        self._reset(hidden)

    def _reset(self, hidden):
        std = hidden ** -0.5
        self.W_q.normal_(0, std)  # expect: GG108
        self.W_k.normal_(0, std)  # also: GG108
        self.v.normal_(0, std)  # also: GG108
        self.bias.zero_()  # also: GG108

    def forward(self, query, keys, values):
        feats = torch.tanh((query @ self.W_q).unsqueeze(1) + keys @ self.W_k + self.bias)
        scores = feats @ self.v
        weights = F.softmax(scores, dim=-1)
        return torch.bmm(weights.unsqueeze(1), values).squeeze(1)


class Seq2SeqDecoderStep(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.attention = AdditiveAttention(dim, dim, 16)  # also: GG108
        self.out = nn.Linear(2 * dim, dim)

    def forward(self, hidden, enc_outputs):
        context = self.attention(hidden, enc_outputs, enc_outputs)
        return self.out(torch.cat([hidden, context], dim=-1))


def main():
    torch.manual_seed(0)
    step = Seq2SeqDecoderStep()
    hidden = torch.randn(2, 8)
    enc = torch.randn(2, 5, 8)
    step(hidden, enc).sum().backward()


if __name__ == "__main__":
    main()
