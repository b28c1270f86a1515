# corpus: LoRA fine-tuning of a small decoder with frozen embeddings, frozen norm and head and gradient checkpointing through the reentrant torch.utils.checkpoint; no checkpoint input requires grad, so the checkpointed blocks' outputs (and the loss) carry no graph and backward fails.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/huggingface/transformers/issues/23170
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class LoraLayer(nn.Module):
    def __init__(self, base: nn.Linear, r=4, lora_alpha=16):
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = lora_alpha / r

    def forward(self, x):
        return self.base_layer(x) + self.lora_B(self.lora_A(x)) * self.scaling


class DecoderLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(dim)
        self.q_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, hidden_states):
        h = self.input_layernorm(hidden_states)
        attn = torch.softmax(self.q_proj(h) @ h.transpose(1, 2) / h.shape[-1] ** 0.5, dim=-1)
        hidden_states = hidden_states + attn @ self.v_proj(h)
        return hidden_states + self.mlp(hidden_states)


class LlamaLikeModel(nn.Module):
    def __init__(self, vocab=32, dim=16, n_layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([DecoderLayer(dim) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, input_ids, labels):
        hidden_states = self.embed_tokens(input_ids)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                hidden_states = checkpoint(layer, hidden_states, use_reentrant=True)  # expect: GG106
            else:
                hidden_states = layer(hidden_states)
        logits = self.lm_head(self.norm(hidden_states))
        return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))


def get_peft_model(model, target_modules=("q_proj", "v_proj"), r=4):
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.layers:
        for name in target_modules:
            setattr(layer, name, LoraLayer(getattr(layer, name), r=r))
    return model


def train(model, optimizer, batches):
    model.train()
    for step, input_ids in enumerate(batches):
        loss = model(input_ids, labels=input_ids)
        optimizer.zero_grad()
        loss.backward()  # also: GG106
        optimizer.step()
        print("step", step, "loss", loss.item())


def main():
    torch.manual_seed(0)
    model = LlamaLikeModel()
    model = get_peft_model(model)
    model.gradient_checkpointing_enable()
    trainable = [p for p in model.parameters() if p.requires_grad]
    print("trainable params:", sum(p.numel() for p in trainable))
    optimizer = torch.optim.AdamW(trainable, lr=1e-3)
    batches = [torch.randint(0, 32, (2, 8)) for _ in range(2)]
    train(model, optimizer, batches)


if __name__ == "__main__":
    main()
