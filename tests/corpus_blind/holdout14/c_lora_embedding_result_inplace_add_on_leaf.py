# corpus: LoRA fine-tuning of a frozen embedding (peft lora.Embedding shape): the trainer enables input gradients for checkpointing with a forward hook that calls output.requires_grad_(), which turns the frozen embedding's output into a leaf requiring grad, and the LoRA forward then adds the low-rank update with result += ..., an in-place op on that leaf
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/huggingface/peft/issues/1553
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LoraEmbedding(nn.Module):
    def __init__(self, base: nn.Embedding, r=4, lora_alpha=8):
        super().__init__()
        self.base_layer = base
        self.r = r
        self.scaling = lora_alpha / r
        self.lora_embedding_A = nn.Parameter(torch.zeros(r, base.num_embeddings))
        self.lora_embedding_B = nn.Parameter(torch.zeros(base.embedding_dim, r))
        nn.init.zeros_(self.lora_embedding_A)
        nn.init.normal_(self.lora_embedding_B)

    def _embed(self, x, weight):
        return F.embedding(x, weight, padding_idx=self.base_layer.padding_idx)

    def forward(self, x):
        result = self.base_layer(x)
        after_A = self._embed(x, self.lora_embedding_A.T)
        result += (after_A @ self.lora_embedding_B.T) * self.scaling  # expect: GG108
        return result


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.block = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        h = self.embed_tokens(input_ids)
        return self.lm_head(h + self.block(h))


def freeze_base_and_inject_lora(model, r=4):
    for p in model.parameters():
        p.requires_grad_(False)
    model.embed_tokens = LoraEmbedding(model.embed_tokens, r=r)
    return model


def enable_input_require_grads(model):
    # what transformers does before gradient checkpointing of a frozen base
    def make_inputs_require_grads(module, inputs, output):
        output.requires_grad_(True)
    return model.embed_tokens.base_layer.register_forward_hook(make_inputs_require_grads)


class LoraTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=lr)

    def training_step(self, input_ids):
        logits = self.model(input_ids[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), input_ids[:, 1:].reshape(-1))

    def train(self, steps=3):
        for step in range(steps):
            input_ids = torch.randint(0, 50, (4, 12))
            loss = self.training_step(input_ids)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(f"step {step} loss {loss.item():.4f} ppl {math.exp(loss.item()):.1f}")


def main():
    torch.manual_seed(0)
    model = freeze_base_and_inject_lora(TinyCausalLM())
    enable_input_require_grads(model)
    LoraTrainer(model).train()


if __name__ == "__main__":
    main()
