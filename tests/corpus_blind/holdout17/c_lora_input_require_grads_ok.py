# corpus: E5-V style contrastive LoRA fine-tuning of a decoder with frozen embeddings and reentrant gradient checkpointing; model.enable_input_require_grads() hooks the embedding so its output requires grad, the checkpointed blocks record a graph and the LoRA weights receive gradients (correct).
# source: https://github.com/kongds/E5-V/issues/19
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


class LlavaNextTextModel(nn.Module):
    def __init__(self, vocab=32, dim=16, n_layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([DecoderLayer(dim) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(dim)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def get_input_embeddings(self):
        return self.embed_tokens

    def enable_input_require_grads(self):
        def make_inputs_require_grads(module, input, output):
            output.requires_grad_(True)

        self._require_grads_hook = self.get_input_embeddings().register_forward_hook(make_inputs_require_grads)

    def forward(self, input_ids):
        hidden_states = self.embed_tokens(input_ids)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                hidden_states = checkpoint(layer, hidden_states, use_reentrant=True)
            else:
                hidden_states = layer(hidden_states)
        return self.norm(hidden_states)[:, -1]


def get_peft_model(model, target_modules=("q_proj", "v_proj"), r=4):
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.layers:
        for name in target_modules:
            setattr(layer, name, LoraLayer(getattr(layer, name), r=r))
    return model


class ContrastiveTrainer:
    def __init__(self, model, lr=1e-3, temp=0.05):
        self.model = model
        self.temp = temp
        self.optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)

    def compute_loss(self, sent0, sent1):
        e0 = F.normalize(self.model(sent0), dim=-1)
        e1 = F.normalize(self.model(sent1), dim=-1)
        sim = e0 @ e1.T / self.temp
        return F.cross_entropy(sim, torch.arange(sim.shape[0]))

    def train(self, batches):
        self.model.train()
        for step, (sent0, sent1) in enumerate(batches):
            loss = self.compute_loss(sent0, sent1)
            self.optimizer.zero_grad()
            loss.backward()
            lora_b = self.model.layers[0].q_proj.lora_B.weight.grad
            assert lora_b is not None and lora_b.abs().sum() > 0
            if step > 0:
                assert self.model.layers[0].q_proj.lora_A.weight.grad.abs().sum() > 0
            self.optimizer.step()
            print("step", step, "loss", loss.item())


def main():
    torch.manual_seed(0)
    model = get_peft_model(LlavaNextTextModel())
    grad_checkpoint = True
    if grad_checkpoint:
        model.gradient_checkpointing_enable()
        model.enable_input_require_grads()
    trainer = ContrastiveTrainer(model)
    batches = []
    for _ in range(2):
        sent0 = torch.randint(0, 32, (4, 8))
        sent1 = sent0.clone()
        sent1[:, :6] = torch.randint(0, 32, (4, 6))
        batches.append((sent0, sent1))
    trainer.train(batches)


if __name__ == "__main__":
    main()
