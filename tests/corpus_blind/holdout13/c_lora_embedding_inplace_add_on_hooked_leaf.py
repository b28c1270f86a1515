# corpus: LoRA fine-tuning of a small causal LM (peft shape): prepare_model_for_kbit_training freezes the base and registers enable_input_require_grads' hook on the input embedding, then LoRA wraps that embedding; the hook makes the frozen base embedding's output a leaf that requires grad, and LoraEmbedding.forward adds the low-rank term to it in place
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/huggingface/peft/pull/1372
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=64, dim=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.block = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        self._require_grads_hook = None

    def get_input_embeddings(self):
        return self.embed_tokens

    def enable_input_require_grads(self):
        def make_inputs_require_grads(module, input, output):
            output.requires_grad_(True)
        self._require_grads_hook = self.get_input_embeddings().register_forward_hook(make_inputs_require_grads)

    def forward(self, input_ids, labels=None):
        h = self.embed_tokens(input_ids)
        h = h + self.block(h)
        logits = self.lm_head(h)
        if labels is None:
            return logits
        return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))


class LoraEmbedding(nn.Module):
    def __init__(self, base_layer, r=4, lora_alpha=8):
        super().__init__()
        self.base_layer = base_layer
        self.lora_embedding_A = nn.Parameter(torch.zeros(r, base_layer.num_embeddings))
        self.lora_embedding_B = nn.Parameter(torch.empty(base_layer.embedding_dim, r))
        nn.init.normal_(self.lora_embedding_A)
        nn.init.kaiming_uniform_(self.lora_embedding_B, a=math.sqrt(5))
        self.scaling = lora_alpha / r

    def forward(self, x):
        result = self.base_layer(x)
        after_A = F.embedding(x, self.lora_embedding_A.T)
        result += (after_A @ self.lora_embedding_B.T) * self.scaling  # expect: GG108
        return result


def prepare_model_for_kbit_training(model):
    for param in model.parameters():
        param.requires_grad = False
    model.enable_input_require_grads()  # also: GG108
    return model


def get_peft_model(model, target_modules=("embed_tokens",)):
    for name in target_modules:
        setattr(model, name, LoraEmbedding(getattr(model, name)))
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"trainable params: {trainable}")
    return model


def train(model, batches, epochs=1, lr=1e-3):
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    for epoch in range(epochs):
        total = 0.0
        for input_ids in batches:
            loss = model(input_ids, labels=input_ids)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(batches):.4f}")


def main():
    torch.manual_seed(0)
    model = TinyCausalLM()
    model = prepare_model_for_kbit_training(model)
    model = get_peft_model(model)
    batches = [torch.randint(0, 64, (4, 16)) for _ in range(4)]
    train(model, batches, epochs=2)


if __name__ == "__main__":
    main()
