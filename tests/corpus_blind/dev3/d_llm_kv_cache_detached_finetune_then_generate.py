# corpus: llama-style Attention keeps a module-level KV cache but re-detaches it at the top of every forward, so batch-by-batch fine-tuning works and the same cache serves incremental greedy generation under no_grad afterwards
# source: https://github.com/meta-llama/llama/issues/841
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM, HEADS, MAX_BSZ, MAX_LEN = 28, 16, 2, 2, 16


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = DIM // HEADS
        self.wqkv = nn.Linear(DIM, 3 * DIM, bias=False)
        self.wo = nn.Linear(DIM, DIM, bias=False)
        self.cache_k = torch.zeros(MAX_BSZ, MAX_LEN, HEADS, self.head_dim)
        self.cache_v = torch.zeros(MAX_BSZ, MAX_LEN, HEADS, self.head_dim)

    def forward(self, x, start_pos, mask):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = (t.view(bsz, seqlen, HEADS, self.head_dim) for t in self.wqkv(x).split(DIM, dim=-1))
        self.cache_k = self.cache_k.to(xq).detach()
        self.cache_v = self.cache_v.to(xq).detach()
        self.cache_k[:bsz, start_pos:start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos:start_pos + seqlen] = xv
        keys = self.cache_k[:bsz, :start_pos + seqlen].transpose(1, 2)
        values = self.cache_v[:bsz, :start_pos + seqlen].transpose(1, 2)
        scores = xq.transpose(1, 2) @ keys.transpose(2, 3) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores + mask
        out = F.softmax(scores, dim=-1) @ values
        return self.wo(out.transpose(1, 2).reshape(bsz, seqlen, DIM))


class Llama(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        self.tok_embeddings = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList(Attention() for _ in range(n_layers))
        self.norms = nn.ModuleList(nn.LayerNorm(DIM) for _ in range(n_layers))
        self.output = nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, tokens, start_pos=0):
        seqlen = tokens.shape[1]
        h = self.tok_embeddings(tokens)
        mask = None
        if seqlen > 1:
            mask = torch.full((1, 1, seqlen, seqlen), float("-inf")).triu(1)
            mask = torch.cat([torch.zeros(1, 1, seqlen, start_pos), mask], dim=-1)
        for attn, norm in zip(self.layers, self.norms):
            h = h + attn(norm(h), start_pos, mask)
        return self.output(h)


class Trainer:
    def __init__(self, model, lr=3e-3):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.history = []

    def train_epoch(self, batches):
        self.model.train()
        for tokens in batches:
            logits = self.model(tokens[:, :-1], start_pos=0)
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.history.append(loss.item())

    @torch.no_grad()
    def generate(self, prompt, max_new_tokens=4):
        self.model.eval()
        tokens, prev_pos = prompt, 0
        for cur_pos in range(prompt.shape[1], prompt.shape[1] + max_new_tokens):
            logits = self.model(tokens[:, prev_pos:cur_pos], start_pos=prev_pos)
            next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
            tokens = torch.cat([tokens, next_token], dim=1)
            prev_pos = cur_pos
        return tokens


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(Llama())
    for epoch in range(2):
        trainer.train_epoch([torch.randint(0, VOCAB, (2, 9)) for _ in range(3)])
        print(f"epoch {epoch} last loss {trainer.history[-1]:.4f}")
    print(trainer.generate(torch.randint(0, VOCAB, (1, 3))).tolist())
