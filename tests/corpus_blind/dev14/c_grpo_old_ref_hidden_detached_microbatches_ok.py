# corpus: GRPO fine-tuning step (unsloth-zoo shape after the fix): old-policy hidden states and log-probs are computed once for the whole batch before the micro-batch loop and detached, the reference log-probs are computed under torch.no_grad(), so every micro-batch backward walks only its own fresh policy forward while reusing the cached old/ref log-probs; correct
# source: https://github.com/unslothai/unsloth-zoo/pull/345
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.body = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def hidden_states(self, input_ids):
        return self.body(self.embed(input_ids))[0]


def selective_log_softmax(lm_head, hidden, input_ids):
    logits = lm_head(hidden[:, :-1])
    return torch.gather(logits.log_softmax(-1), 2, input_ids[:, 1:].unsqueeze(-1)).squeeze(-1)


def grpo_loss(new_logps, old_logps, ref_logps, advantages, mask, beta=0.04, eps=0.2):
    ratio = torch.exp(new_logps - old_logps)
    clipped = torch.clamp(ratio, 1 - eps, 1 + eps)
    pg = -torch.min(ratio * advantages.unsqueeze(1), clipped * advantages.unsqueeze(1))
    kl = torch.exp(ref_logps - new_logps) - (ref_logps - new_logps) - 1
    per_token = pg + beta * kl
    return ((per_token * mask).sum(1) / mask.sum(1)).mean()


class GRPOTrainer:
    def __init__(self, model, ref_model, micro_batch=2, lr=1e-3):
        self.model, self.ref_model, self.micro_batch = model, ref_model, micro_batch
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def compute_rewards(self, completions):
        return (completions % 2 == 0).float().mean(1)

    def step(self, completions):
        rewards = self.compute_rewards(completions)
        advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-4)
        mask = torch.ones(completions.size(0), completions.size(1) - 1)
        old_hidden = self.model.hidden_states(completions).detach()
        with torch.no_grad():
            ref_hidden = self.ref_model.hidden_states(completions)
            ref_logps = selective_log_softmax(self.ref_model.lm_head, ref_hidden, completions)
        old_logps = selective_log_softmax(self.model.lm_head, old_hidden, completions).detach()
        self.optimizer.zero_grad()
        total = 0.0
        n_micro = completions.size(0) // self.micro_batch
        for s in range(0, completions.size(0), self.micro_batch):
            sl = slice(s, s + self.micro_batch)
            new_hidden = self.model.hidden_states(completions[sl])
            new_logps = selective_log_softmax(self.model.lm_head, new_hidden, completions[sl])
            loss = grpo_loss(new_logps, old_logps[sl], ref_logps[sl], advantages[sl], mask[sl]) / n_micro
            loss.backward()
            total += loss.item()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return total


def main():
    torch.manual_seed(0)
    model = TinyLM()
    trainer = GRPOTrainer(model, copy.deepcopy(model).eval())
    for it in range(3):
        completions = torch.randint(0, 32, (6, 10))
        print("iter", it, "grpo loss", round(trainer.step(completions), 5))


if __name__ == "__main__":
    main()
