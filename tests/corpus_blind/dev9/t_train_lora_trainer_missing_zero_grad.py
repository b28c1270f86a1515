# corpus: LoRA fine-tuning Trainer for a tiny causal LM accumulates micro-batch gradients and steps the optimizer, but never zeroes gradients after the step, so every update reuses all past gradients
# source: https://github.com/tenstorrent/tt-blacksmith/pull/711
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, rank=4, alpha=8.0):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.base.bias.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.randn(rank, base.in_features) * 0.01)
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.lora_a.t() @ self.lora_b.t()) * self.scaling


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=40, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.embed.weight.requires_grad_(False)
        self.proj = LoRALinear(nn.Linear(dim, dim))
        self.lm_head = LoRALinear(nn.Linear(dim, vocab))

    def forward(self, input_ids, labels):
        h = torch.tanh(self.proj(self.embed(input_ids)))
        logits = self.lm_head(h)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
        return {"loss": loss, "logits": logits}


@dataclass
class TrainingConfig:
    lr: float = 1e-2
    grad_accum_steps: int = 2
    max_steps: int = 8
    log_every: int = 4


class LoRATrainer:
    def __init__(self, model, cfg: TrainingConfig):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=cfg.lr)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: 1.0)

    def train(self, batches):
        self.model.train()
        running = 0.0
        for step, batch in enumerate(batches[: self.cfg.max_steps]):  # expect: GG201
            out = self.model(**batch)
            (out["loss"] / self.cfg.grad_accum_steps).backward()
            running += out["loss"].item()
            if (step + 1) % self.cfg.grad_accum_steps == 0:
                self.optimizer.step()
                self.scheduler.step()
            if (step + 1) % self.cfg.log_every == 0:
                print(f"step {step + 1} loss {running / self.cfg.log_every:.4f}")
                running = 0.0


def make_batches(n=8, bs=4, seq=6, vocab=40):
    out = []
    for _ in range(n):
        ids = torch.randint(0, vocab, (bs, seq))
        out.append({"input_ids": ids, "labels": ids.clone()})
    return out


def main():
    torch.manual_seed(0)
    trainer = LoRATrainer(TinyCausalLM(), TrainingConfig())
    trainer.train(make_batches())


if __name__ == "__main__":
    main()
