# corpus: LoRA fine-tuning of a causal LM with reentrant gradient checkpointing and frozen embeddings, with the PR's fix: model.enable_input_require_grads() registers a forward hook that marks the embedding output as requiring grad, so the checkpointed LoRA blocks stay in the graph; correct
# source: https://github.com/zai-org/ChatGLM3/pull/846
import math
import random
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


@dataclass
class FinetuningConfig:
    vocab_size: int = 50
    hidden_size: int = 16
    num_layers: int = 2
    lora_r: int = 4
    lora_alpha: int = 8
    learning_rate: float = 1e-3
    max_steps: int = 3
    gradient_checkpointing: bool = True


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int, alpha: int):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) / math.sqrt(base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


class GLMBlock(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(hidden)
        self.query_key_value = nn.Linear(hidden, 3 * hidden)
        self.dense = nn.Linear(hidden, hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.GELU(), nn.Linear(2 * hidden, hidden))

    def forward(self, hidden_states):
        h = self.input_layernorm(hidden_states)
        q, k, v = self.query_key_value(h).chunk(3, dim=-1)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        hidden_states = hidden_states + self.dense(attn)
        return hidden_states + self.mlp(hidden_states)


class ChatGLMForConditionalGeneration(nn.Module):
    def __init__(self, config: FinetuningConfig):
        super().__init__()
        self.embedding = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([GLMBlock(config.hidden_size) for _ in range(config.num_layers)])
        self.final_layernorm = nn.LayerNorm(config.hidden_size)
        self.output_layer = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def get_input_embeddings(self):
        return self.embedding

    def enable_input_require_grads(self):
        def make_inputs_require_grads(module, input, output):
            output.requires_grad_(True)

        self._require_grads_hook = self.get_input_embeddings().register_forward_hook(make_inputs_require_grads)

    def forward(self, input_ids, labels=None):
        hidden_states = self.embedding(input_ids)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                hidden_states = checkpoint(layer, hidden_states, use_reentrant=True)
            else:
                hidden_states = layer(hidden_states)
        logits = self.output_layer(self.final_layernorm(hidden_states))
        loss = None
        if labels is not None:
            shift_logits = logits[:, :-1].reshape(-1, logits.shape[-1])
            shift_labels = labels[:, 1:].reshape(-1)
            loss = F.cross_entropy(shift_logits, shift_labels, ignore_index=-100)
        return {"loss": loss, "logits": logits}


def get_peft_model(model, config: FinetuningConfig):
    for p in model.parameters():
        p.requires_grad_(False)
    for block in model.layers:
        block.query_key_value = LoraLinear(block.query_key_value, config.lora_r, config.lora_alpha)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    print(f"trainable params: {trainable} || all params: {total}")
    return model


class Seq2SeqTrainer:
    def __init__(self, model, config: FinetuningConfig, train_dataset):
        self.model = model
        self.config = config
        self.train_dataset = train_dataset
        self.optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                           lr=config.learning_rate)

    def compute_loss(self, model, inputs):
        return model(**inputs)["loss"]

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        loss.backward()
        return loss.detach()

    def train(self):
        for step, inputs in enumerate(self.train_dataset):
            if step >= self.config.max_steps:
                break
            tr_loss = self.training_step(self.model, inputs)
            self.optimizer.step()
            self.optimizer.zero_grad()
            lora_b = self.model.layers[0].query_key_value.lora_B
            print("step", step, "loss %.4f" % tr_loss.item(), "lora_B norm %.5f" % lora_b.norm().item())


def build_dataset(config: FinetuningConfig, n=4, seq_len=8):
    data = []
    for _ in range(n):
        ids = torch.randint(0, config.vocab_size, (2, seq_len))
        labels = ids.clone()
        labels[:, :3] = -100
        data.append({"input_ids": ids, "labels": labels})
    return data


def main():
    config = FinetuningConfig()
    model = ChatGLMForConditionalGeneration(config)
    if config.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.enable_input_require_grads()
    model = get_peft_model(model, config)
    trainer = Seq2SeqTrainer(model, config, build_dataset(config))
    trainer.train()


if __name__ == "__main__":
    main()
