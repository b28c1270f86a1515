# corpus: Transformer seq2seq emotion-label generator (MMESGN, OpenNMT-based) with a fairseq-style MultiheadAttention: q, k, v come from one projection split by .chunk(3), and `q *= self.scaling` modifies a chunk view in place during training
# raises: RuntimeError: Output 0 of Split is a view and is being modified inplace
# source: https://github.com/OpenNMT/OpenNMT-py/issues/2303
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Parameter

PAD, BOS, EOS = 0, 1, 2


class MultiheadAttention(nn.Module):
    """Multi-headed attention (code adapted from the fairseq repo)."""

    def __init__(self, embed_dim, num_heads, attn_dropout=0.0, bias=True):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.attn_dropout = attn_dropout
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, "embed_dim must be divisible by num_heads"
        self.scaling = self.head_dim ** -0.5
        self.in_proj_weight = Parameter(torch.Tensor(3 * embed_dim, embed_dim))
        self.in_proj_bias = Parameter(torch.Tensor(3 * embed_dim))
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.in_proj_weight)
        nn.init.xavier_uniform_(self.out_proj.weight)
        nn.init.constant_(self.in_proj_bias, 0.0)
        nn.init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, attn_mask=None):
        qkv_same = query.data_ptr() == key.data_ptr() == value.data_ptr()
        kv_same = key.data_ptr() == value.data_ptr()
        tgt_len, bsz, embed_dim = query.size()

        if qkv_same:
            # self-attention
            q, k, v = self.in_proj_qkv(query)
        elif kv_same:
            # encoder-decoder attention
            q = self.in_proj_q(query)
            k, v = self.in_proj_kv(key)
        else:
            q = self.in_proj_q(query)
            k = self.in_proj_k(key)
            v = self.in_proj_v(value)
        q *= self.scaling  # expect: GG107

        q = q.contiguous().view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.contiguous().view(-1, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        v = v.contiguous().view(-1, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        src_len = k.size(1)

        attn_weights = torch.bmm(q, k.transpose(1, 2))
        if attn_mask is not None:
            attn_weights = attn_weights + attn_mask.unsqueeze(0)
        attn_weights = F.softmax(attn_weights.float(), dim=-1).type_as(attn_weights)
        attn_weights = F.dropout(attn_weights, p=self.attn_dropout, training=self.training)

        attn = torch.bmm(attn_weights, v)
        attn = attn.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)
        attn = self.out_proj(attn)
        attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len).sum(dim=1) / self.num_heads
        return attn, attn_weights

    def in_proj_qkv(self, query):
        return self._in_proj(query).chunk(3, dim=-1)

    def in_proj_kv(self, key):
        return self._in_proj(key, start=self.embed_dim).chunk(2, dim=-1)

    def in_proj_q(self, query):
        return self._in_proj(query, end=self.embed_dim)

    def in_proj_k(self, key):
        return self._in_proj(key, start=self.embed_dim, end=2 * self.embed_dim)

    def in_proj_v(self, value):
        return self._in_proj(value, start=2 * self.embed_dim)

    def _in_proj(self, input, start=0, end=None):
        weight = self.in_proj_weight[start:end, :]
        bias = self.in_proj_bias[start:end]
        return F.linear(input, weight, bias)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.layer_norm = nn.LayerNorm(d_model, eps=1e-6)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        inter = self.dropout(F.relu(self.w_1(self.layer_norm(x))))
        return self.dropout(self.w_2(inter)) + x


class TransformerEncoderLayer(nn.Module):
    def __init__(self, d_model, heads, d_ff, dropout):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, heads, attn_dropout=dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.layer_norm = nn.LayerNorm(d_model, eps=1e-6)
        self.dropout = nn.Dropout(dropout)

    def forward(self, inputs):
        input_norm = self.layer_norm(inputs)
        context, _ = self.self_attn(input_norm, input_norm, input_norm)
        out = self.dropout(context) + inputs
        return self.feed_forward(out)


class TransformerDecoderLayer(nn.Module):
    def __init__(self, d_model, heads, d_ff, dropout):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, heads, attn_dropout=dropout)
        self.context_attn = MultiheadAttention(d_model, heads, attn_dropout=dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.layer_norm_1 = nn.LayerNorm(d_model, eps=1e-6)
        self.layer_norm_2 = nn.LayerNorm(d_model, eps=1e-6)
        self.drop = nn.Dropout(dropout)

    def forward(self, inputs, memory_bank, dec_mask):
        input_norm = self.layer_norm_1(inputs)
        query, _ = self.self_attn(input_norm, input_norm, input_norm, attn_mask=dec_mask)
        query = self.drop(query) + inputs
        query_norm = self.layer_norm_2(query)
        mid, attn = self.context_attn(query_norm, memory_bank, memory_bank)
        output = self.feed_forward(self.drop(mid) + query)
        return output, attn


class PositionalEncoding(nn.Module):
    def __init__(self, dim, max_len=64):
        super().__init__()
        pe = torch.zeros(max_len, dim)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, dim, 2).float() * -(math.log(10000.0) / dim))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(1))
        self.dim = dim

    def forward(self, emb):
        return emb * math.sqrt(self.dim) + self.pe[: emb.size(0)]


class EmotionSeq2Seq(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d_model=32, heads=4, d_ff=64, layers=1, dropout=0.1):
        super().__init__()
        self.src_emb = nn.Embedding(src_vocab, d_model, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(tgt_vocab, d_model, padding_idx=PAD)
        self.pe = PositionalEncoding(d_model)
        self.encoder = nn.ModuleList([TransformerEncoderLayer(d_model, heads, d_ff, dropout) for _ in range(layers)])
        self.decoder = nn.ModuleList([TransformerDecoderLayer(d_model, heads, d_ff, dropout) for _ in range(layers)])
        self.enc_norm = nn.LayerNorm(d_model, eps=1e-6)
        self.dec_norm = nn.LayerNorm(d_model, eps=1e-6)
        self.generator = nn.Sequential(nn.Linear(d_model, tgt_vocab), nn.LogSoftmax(dim=-1))

    def forward(self, src, tgt):
        out = self.pe(self.src_emb(src))
        for layer in self.encoder:
            out = layer(out)
        memory_bank = self.enc_norm(out)

        tgt_len = tgt.size(0)
        dec_mask = torch.triu(torch.full((tgt_len, tgt_len), float("-inf")), diagonal=1)
        output = self.pe(self.tgt_emb(tgt))
        for layer in self.decoder:
            output, attn = layer(output, memory_bank, dec_mask)
        return self.generator(self.dec_norm(output)), attn


class Trainer(object):
    def __init__(self, model, optim, criterion):
        self.model = model
        self.optim = optim
        self.criterion = criterion

    def train_epoch(self, batches, epoch):
        self.model.train()
        total_loss, n_words = 0.0, 0
        for i, (src, tgt) in enumerate(batches):
            dec_in, gold = tgt[:-1], tgt[1:]
            self.optim.zero_grad()
            scores, _ = self.model(src, dec_in)
            loss = self.criterion(scores.view(-1, scores.size(-1)), gold.reshape(-1))
            loss.backward()
            self.optim.step()
            total_loss += loss.item()
            n_words += gold.ne(PAD).sum().item()
        print("epoch %d  loss/word %.4f" % (epoch, total_loss / max(1, n_words)))


def make_batches(n, batch_size, src_len, n_labels, src_vocab, tgt_vocab, seed=0):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n):
        src = torch.randint(3, src_vocab, (src_len, batch_size), generator=g)
        labels = torch.randint(3, tgt_vocab, (n_labels, batch_size), generator=g)
        tgt = torch.cat([torch.full((1, batch_size), BOS), labels, torch.full((1, batch_size), EOS)])
        batches.append((src, tgt))
    return batches


def main():
    parser = argparse.ArgumentParser(description="train.py")
    parser.add_argument("-d_model", type=int, default=32)
    parser.add_argument("-heads", type=int, default=4)
    parser.add_argument("-layers", type=int, default=1)
    parser.add_argument("-dropout", type=float, default=0.1)
    parser.add_argument("-epochs", type=int, default=2)
    parser.add_argument("-lr", type=float, default=1e-3)
    opt = parser.parse_args()

    torch.manual_seed(0)
    src_vocab, tgt_vocab = 50, 9  # 6 emotion labels + PAD/BOS/EOS
    model = EmotionSeq2Seq(src_vocab, tgt_vocab, opt.d_model, opt.heads, 2 * opt.d_model, opt.layers, opt.dropout)
    optim = torch.optim.Adam(model.parameters(), lr=opt.lr, betas=(0.9, 0.98), eps=1e-9)
    criterion = nn.NLLLoss(ignore_index=PAD, reduction="sum")
    trainer = Trainer(model, optim, criterion)
    batches = make_batches(3, 4, 10, 3, src_vocab, tgt_vocab)
    for epoch in range(1, opt.epochs + 1):
        trainer.train_epoch(batches, epoch)


if __name__ == "__main__":
    main()
