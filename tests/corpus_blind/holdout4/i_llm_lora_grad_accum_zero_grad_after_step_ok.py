# corpus: LoRA fine-tuning loop for a tiny causal LM with gradient accumulation: the loss is divided by the accumulation steps, and clip/step/scheduler/zero_grad all run under the same `(step + 1) % accum == 0` condition, with .item() for logging (correct)
# source: https://github.com/huggingface/accelerate/issues/1299
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class FinetuneConfig:
    vocab_size: int = 32
    d_model: int = 16
    n_layers: int = 2
    seq_len: int = 8
    lora_r: int = 4
    lora_alpha: float = 8.0
    lr: float = 5e-3
    gradient_accumulation_steps: int = 4
    max_grad_norm: float = 1.0
    num_epochs: int = 2
    micro_batch_size: int = 2


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int, alpha: float):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        if self.base.bias is not None:
            self.base.bias.requires_grad_(False)
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling


class Block(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.o_proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        h = self.ln1(x)
        att = F.scaled_dot_product_attention(self.q_proj(h), self.k_proj(h), self.v_proj(h), is_causal=True)
        x = x + self.o_proj(att)
        return x + self.mlp(self.ln2(x))


class TinyCausalLM(nn.Module):
    def __init__(self, cfg: FinetuneConfig):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList([Block(cfg.d_model) for _ in range(cfg.n_layers)])
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def forward(self, input_ids, labels=None):
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return {"loss": loss, "logits": logits}


def apply_lora(model: TinyCausalLM, cfg: FinetuneConfig):
    for p in model.parameters():
        p.requires_grad_(False)
    for block in model.blocks:
        block.q_proj = LoRALinear(block.q_proj, cfg.lora_r, cfg.lora_alpha)
        block.v_proj = LoRALinear(block.v_proj, cfg.lora_r, cfg.lora_alpha)
    return model


def make_dataloader(cfg: FinetuneConfig, num_batches=8):
    batches = []
    for _ in range(num_batches):
        ids = torch.randint(0, cfg.vocab_size, (cfg.micro_batch_size, cfg.seq_len))
        batches.append({"input_ids": ids, "labels": ids.clone()})
    return batches


class LoRATrainer:
    def __init__(self, model, cfg: FinetuneConfig):
        self.model = model
        self.cfg = cfg
        self.trainable = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(self.trainable, lr=cfg.lr)
        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: 1.0 / (1.0 + 0.1 * s))
        self.scaler = torch.amp.GradScaler("cpu", enabled=False)
        self.completed_steps = 0

    def training_step(self, batch):
        outputs = self.model(**batch)
        loss = outputs["loss"] / self.cfg.gradient_accumulation_steps
        self.scaler.scale(loss).backward()
        return loss.detach()

    def optimizer_step(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.trainable, self.cfg.max_grad_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.lr_scheduler.step()
        self.optimizer.zero_grad()
        self.completed_steps += 1

    def train(self, train_dataloader):
        self.model.train()
        self.optimizer.zero_grad()
        for epoch in range(self.cfg.num_epochs):
            total_loss = 0.0
            for step, batch in enumerate(train_dataloader):
                total_loss += self.training_step(batch).item()
                if (step + 1) % self.cfg.gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                    self.optimizer_step()
            print(f"epoch {epoch}: loss {total_loss * self.cfg.gradient_accumulation_steps / len(train_dataloader):.4f}"
                  f" steps {self.completed_steps}")


def main():
    torch.manual_seed(0)
    cfg = FinetuneConfig()
    model = apply_lora(TinyCausalLM(cfg), cfg)
    trainer = LoRATrainer(model, cfg)
    trainer.train(make_dataloader(cfg))


if __name__ == "__main__":
    main()
