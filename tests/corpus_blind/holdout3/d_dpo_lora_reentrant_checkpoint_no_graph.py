# corpus: hand-rolled DPO trainer on a LoRA-adapted tiny causal LM with reentrant gradient checkpointing per block; the embeddings are frozen, so no checkpoint input requires grad, the policy log-probs come back without a graph and the DPO loss cannot be backpropagated
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/huggingface/peft/pull/1056
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, lora_alpha=8):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) * 0.02)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scaling = lora_alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        self.proj = LoraLinear(nn.Linear(dim, dim))
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, h):
        h = h + self.proj(self.ln(h))
        return h + self.mlp(h)


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=40, dim=16, n_layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(n_layers))
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, input_ids):
        hidden = self.embed_tokens(input_ids)
        for block in self.blocks:
            if self.gradient_checkpointing and self.training:
                hidden = checkpoint(block, hidden, use_reentrant=True)  # expect: GG106
            else:
                hidden = block(hidden)
        return self.lm_head(hidden)


def mark_only_lora_as_trainable(model):
    for name, param in model.named_parameters():
        param.requires_grad_("lora_" in name)


class DPOTrainer:
    def __init__(self, model, ref_model, beta=0.1, lr=5e-3):
        self.model, self.ref_model, self.beta = model, ref_model, beta
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=lr)

    @staticmethod
    def get_batch_logps(logits, labels):
        logits, labels = logits[:, :-1], labels[:, 1:]
        per_token = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(2)).squeeze(2)
        return per_token.sum(-1)

    def concatenated_forward(self, model, batch):
        input_ids = torch.cat([batch["chosen_input_ids"], batch["rejected_input_ids"]], dim=0)
        all_logps = self.get_batch_logps(model(input_ids), input_ids)
        n = batch["chosen_input_ids"].shape[0]
        return all_logps[:n], all_logps[n:]

    def dpo_loss(self, policy_chosen, policy_rejected, ref_chosen, ref_rejected):
        logits = (policy_chosen - policy_rejected) - (ref_chosen - ref_rejected)
        losses = -F.logsigmoid(self.beta * logits)
        chosen_rewards = self.beta * (policy_chosen - ref_chosen).detach()
        rejected_rewards = self.beta * (policy_rejected - ref_rejected).detach()
        return losses, chosen_rewards, rejected_rewards

    def training_step(self, batch):
        self.model.train()
        policy_chosen, policy_rejected = self.concatenated_forward(self.model, batch)
        with torch.no_grad():
            ref_chosen, ref_rejected = self.concatenated_forward(self.ref_model, batch)
        losses, chosen_r, rejected_r = self.dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected)
        loss = losses.mean()
        self.optimizer.zero_grad()
        loss.backward()  # also: GG106
        self.optimizer.step()
        return {"loss": loss.item(), "rewards/margins": (chosen_r - rejected_r).mean().item()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TinyCausalLM()
    ref_model = copy.deepcopy(model).eval()
    mark_only_lora_as_trainable(model)
    model.gradient_checkpointing_enable()
    trainer = DPOTrainer(model, ref_model)
    for step in range(3):
        batch = {"chosen_input_ids": torch.randint(0, 40, (2, 7)),
                 "rejected_input_ids": torch.randint(0, 40, (2, 7))}
        print(step, trainer.training_step(batch))
