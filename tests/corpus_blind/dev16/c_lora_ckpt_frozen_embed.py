# corpus: LoRA fine-tuning of a tiny LLaMA-style decoder with reentrant gradient checkpointing; the embedding is frozen, so the checkpointed blocks get inputs that need no grad and the loss comes out without a graph.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/lm-sys/FastChat/issues/581
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint


class LoraLinear(nn.Module):
    """A frozen base projection plus a trainable low-rank update (peft-style)."""

    def __init__(self, in_features, out_features, r=4, alpha=8):
        super().__init__()
        self.base = nn.Linear(in_features, out_features, bias=False)
        self.lora_A = nn.Linear(in_features, r, bias=False)
        self.lora_B = nn.Linear(r, out_features, bias=False)
        self.scaling = alpha / r
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling


class LlamaBlock(nn.Module):
    def __init__(self, hidden, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.norm1 = nn.LayerNorm(hidden)
        self.q_proj = LoraLinear(hidden, hidden)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = LoraLinear(hidden, hidden)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)
        self.norm2 = nn.LayerNorm(hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.SiLU(), nn.Linear(4 * hidden, hidden))

    def forward(self, h):
        b, t, c = h.shape
        x = self.norm1(h)
        q = self.q_proj(x).view(b, t, self.n_heads, -1).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_heads, -1).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_heads, -1).transpose(1, 2)
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = h + self.o_proj(att.transpose(1, 2).reshape(b, t, c))
        return h + self.mlp(self.norm2(h))


class TinyLlama(nn.Module):
    def __init__(self, vocab=50, hidden=32, n_heads=4, n_layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList([LlamaBlock(hidden, n_heads) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, input_ids, labels):
        hidden_states = self.embed_tokens(input_ids)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                hidden_states = torch.utils.checkpoint.checkpoint(layer, hidden_states, use_reentrant=True)  # expect: GG106
            else:
                hidden_states = layer(hidden_states)
        logits = self.lm_head(self.norm(hidden_states))
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return loss


def mark_only_lora_as_trainable(model):
    for name, param in model.named_parameters():
        param.requires_grad = "lora_" in name


class LoraTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        trainable = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(trainable, lr=lr)

    def training_step(self, batch):
        self.model.train()
        loss = self.model(batch["input_ids"], batch["labels"])
        self.optimizer.zero_grad()
        loss.backward()  # also: GG106
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    model = TinyLlama()
    model.gradient_checkpointing_enable()
    mark_only_lora_as_trainable(model)
    trainer = LoraTrainer(model)
    for step in range(3):
        ids = torch.randint(0, 50, (2, 12))
        loss = trainer.training_step({"input_ids": ids, "labels": ids})
        print(f"step {step} loss {loss:.4f}")


if __name__ == "__main__":
    main()
