# corpus: lit-gpt style LoRA fine-tuning where LoRALinear.forward adds the low-rank update into the frozen linear's fresh output with +=, and merge() folds B@A into the weight under no_grad after training
# source: https://github.com/Lightning-AI/litgpt/pull/413
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALinear(nn.Linear):
    def __init__(self, in_features, out_features, r=4, lora_alpha=8, lora_dropout=0.0):
        nn.Linear.__init__(self, in_features, out_features)
        self.r = r
        self.scaling = lora_alpha / r
        self.lora_dropout = nn.Dropout(lora_dropout)
        self.lora_A = nn.Parameter(torch.empty(r, in_features))
        self.lora_B = nn.Parameter(torch.zeros(out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.merged = False

    def merge(self):
        if self.r > 0 and not self.merged:
            with torch.no_grad():
                self.weight += (self.lora_B @ self.lora_A) * self.scaling
            self.merged = True

    def forward(self, x):
        result = F.linear(x, self.weight, self.bias)
        if self.r > 0 and not self.merged:
            result += (self.lora_dropout(x) @ self.lora_A.transpose(0, 1) @ self.lora_B.transpose(0, 1)) * self.scaling
        return result


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd=16, n_head=2):
        super().__init__()
        self.n_head = n_head
        self.attn = LoRALinear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class GPT(nn.Module):
    def __init__(self, vocab_size=32, n_embd=16, n_layer=2):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.blocks = nn.ModuleList(CausalSelfAttention(n_embd) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.blocks:
            x = x + block(x)
        return self.lm_head(self.ln_f(x))


def mark_only_lora_as_trainable(model):
    for name, p in model.named_parameters():
        p.requires_grad = "lora_" in name


def fit(model, optimizer, steps=4):
    model.train()
    for step in range(steps):
        tokens = torch.randint(0, 32, (2, 9))
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = GPT()
    mark_only_lora_as_trainable(model)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    fit(model, optimizer)
    model.eval()
    probe = torch.randint(0, 32, (1, 8))
    with torch.no_grad():
        before = model(probe)
        for module in model.modules():
            if isinstance(module, LoRALinear):
                module.merge()
        after = model(probe)
    print("merge max diff", (before - after).abs().max().item())
