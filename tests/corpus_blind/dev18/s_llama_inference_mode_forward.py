# corpus: Training loop for a small LLaMA-style decoder whose Transformer.forward keeps the upstream @torch.inference_mode() decorator, so the logits and the loss carry no graph and loss.backward() fails.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/meta-llama/llama/issues/122
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    dim: int = 32
    n_layers: int = 2
    n_heads: int = 4
    vocab_size: int = 64
    multiple_of: int = 16
    norm_eps: float = 1e-5
    max_seq_len: int = 16


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * self.weight


class Attention(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.n_heads = args.n_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.dim, bias=False)
        self.wk = nn.Linear(args.dim, args.dim, bias=False)
        self.wv = nn.Linear(args.dim, args.dim, bias=False)
        self.wo = nn.Linear(args.dim, args.dim, bias=False)

    def forward(self, x, mask):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        xk = self.wk(x).view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        xv = self.wv(x).view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)
        scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, xv).transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, multiple_of):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, layer_id, args):
        super().__init__()
        self.attention = Attention(args)
        self.feed_forward = FeedForward(args.dim, 4 * args.dim, args.multiple_of)
        self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

    def forward(self, x, mask):
        h = x + self.attention.forward(self.attention_norm(x), mask)
        return h + self.feed_forward.forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, params):
        super().__init__()
        self.params = params
        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.layers = nn.ModuleList([TransformerBlock(i, params) for i in range(params.n_layers)])
        self.norm = RMSNorm(params.dim, eps=params.norm_eps)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)

    @torch.inference_mode()
    def forward(self, tokens, start_pos=0):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        mask = torch.full((1, 1, seqlen, seqlen), float("-inf"))
        mask = torch.triu(mask, diagonal=start_pos + 1).type_as(h)
        for layer in self.layers:
            h = layer(h, mask)
        h = self.norm(h)
        return self.output(h).float()


class GPT(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.transformer = Transformer(args)

    def forward(self, input_ids):
        return self.transformer(input_ids, start_pos=0)


def make_dataloader(n_batches, batch_size, seq_len, vocab_size):
    return [torch.randint(0, vocab_size, (batch_size, seq_len)) for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    args = ModelArgs()
    model = GPT(args)
    model.train()
    dataloader = make_dataloader(3, 4, 9, args.vocab_size)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-6)
    loss_fn = nn.CrossEntropyLoss()
    losses = []

    for epoch in range(2):
        epoch_loss = 0
        for batch in dataloader:
            optimizer.zero_grad()
            input_ids = batch
            logits = model(input_ids[:, :-1])
            targets = input_ids[:, 1:].long()
            logits = logits.reshape(-1, args.vocab_size)
            loss = loss_fn(logits, targets.reshape(-1))
            loss.backward()  # expect: GG106
            optimizer.step()
            epoch_loss += loss.item()
        losses.append(epoch_loss / len(dataloader))
        print("Epoch %d Loss: %.5f" % (epoch + 1, losses[-1]))


if __name__ == "__main__":
    main()
