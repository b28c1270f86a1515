# corpus: Minimal GRPO trainer: rollouts and reference log-probs are computed under no_grad, the policy log-probs are recomputed with grad for the loss, and the KL estimator clamps the masked log-ratio in place on a tensor no backward saved; gradients reach the policy.
# source: https://github.com/open-thought/tiny-grpo/blob/17c2aee3a9a4ec3feff0ce9f088092a2f5ca3e4e/train.py
from dataclasses import dataclass, fields
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.nn.utils import clip_grad_norm_

VOCAB, PAD, EOS = 10, 0, 1


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=VOCAB, hidden=16, max_len=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(max_len, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, input_ids, attention_mask=None, position_ids=None):
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[1]).expand_as(input_ids)
        h, _ = self.rnn(self.tok(input_ids) + self.pos(position_ids))
        return {"logits": self.head(h)}

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens, temperature=1.0):
        seq = input_ids
        for _ in range(max_new_tokens):
            logits = self(seq)["logits"][:, -1] / temperature
            nxt = torch.multinomial(F.softmax(logits, -1), 1)
            seq = torch.cat([seq, nxt], dim=1)
        return seq


def approx_kl_divergence(log_probs, log_probs_ref, action_mask: Optional[torch.Tensor]):
    log_ratio = log_probs_ref.float() - log_probs.float()
    if action_mask is not None:
        log_ratio = log_ratio * action_mask
    log_ratio.clamp_(min=-10.0, max=10.0)
    return log_ratio.exp() - log_ratio - 1


def masked_mean(tensor, mask, dim=None):
    if mask is None:
        return tensor.mean(axis=dim)
    return (tensor * mask).sum(axis=dim) / mask.sum(axis=dim)


@dataclass
class Experience:
    sequences: torch.Tensor
    action_log_probs: torch.Tensor
    log_probs_ref: torch.Tensor
    returns: Optional[torch.Tensor]
    advantages: Optional[torch.Tensor]
    attention_mask: Optional[torch.Tensor]
    action_mask: torch.Tensor
    kl: Optional[torch.Tensor] = None


def join_experience_batch(items):
    batch = {}
    for f in fields(Experience):
        vals = [getattr(item, f.name) for item in items]
        batch[f.name] = torch.cat(vals, dim=0) if vals[0] is not None else None
    return Experience(**batch)


class ReplayBuffer:
    def __init__(self):
        self.items = []

    def append(self, experience):
        self.items.append(experience)

    def clear(self):
        self.items.clear()

    def __len__(self):
        return len(self.items)


class GRPOLoss(nn.Module):
    def __init__(self, clip_eps, kl_weight):
        super().__init__()
        self.clip_eps = clip_eps
        self.kl_weight = kl_weight

    def forward(self, log_probs, experience):
        old_log_probs = experience.action_log_probs
        log_probs_ref = experience.log_probs_ref
        action_mask = experience.action_mask
        advantages = experience.advantages
        kl = approx_kl_divergence(log_probs=log_probs, log_probs_ref=log_probs_ref, action_mask=action_mask)
        ratio = (log_probs - old_log_probs).exp()
        surr1 = ratio * advantages
        surr2 = ratio.clamp(1 - self.clip_eps, 1 + self.clip_eps) * advantages
        loss = -torch.min(surr1, surr2) + self.kl_weight * kl
        loss = masked_mean(loss, action_mask, dim=-1).mean()
        return loss, kl.mean()


@torch.no_grad()
def rollout(model, task, oracle_answer, num_rollouts, max_new_tokens=4):
    model.eval()
    input_ids = task.repeat(num_rollouts, 1)
    sequence_ids = model.generate(input_ids, max_new_tokens=max_new_tokens)
    action_mask = torch.zeros_like(sequence_ids, dtype=torch.bool)
    action_mask[:, input_ids.shape[1]:] = True
    action_mask[sequence_ids == PAD] = False
    action_mask = action_mask[:, 1:]
    returns = torch.zeros(num_rollouts, 1, dtype=torch.float)
    for i in range(num_rollouts):
        completion = sequence_ids[i, input_ids.shape[1]:]
        if (completion == oracle_answer).any():
            returns[i] = 1.0
        elif (completion == oracle_answer + 1).any():
            returns[i] = 0.5
        else:
            returns[i] = 0.01
    return sequence_ids, returns, action_mask


def group_advantages(returns, eps=1e-8):
    return (returns - returns.mean()) / (returns.std() + eps)


def sequence_log_probs_from_logits(logits, output_ids):
    log_prob = F.log_softmax(logits, dim=-1)
    return log_prob.gather(dim=-1, index=output_ids.unsqueeze(-1)).squeeze(-1)


def sequences_log_probs(model, sequence_ids, attention_mask):
    position_ids = attention_mask.long().cumsum(dim=-1) - 1
    position_ids.masked_fill_(mask=(attention_mask == 0), value=1)
    output = model(input_ids=sequence_ids, attention_mask=attention_mask, position_ids=position_ids)
    logits = output["logits"]
    return sequence_log_probs_from_logits(logits=logits[:, :-1].to(torch.float32), output_ids=sequence_ids[:, 1:])


def main():
    torch.manual_seed(42)
    group_size, train_batch_size, lr, kl_weight, clip_eps = 6, 2, 5e-3, 0.01, 0.2
    reference_model, model = TinyCausalLM(), TinyCausalLM()
    reference_model.load_state_dict(model.state_dict())
    reference_model.eval()
    optimizer = optim.Adam(model.parameters(), lr=lr)
    prompts = [(torch.tensor([[2, 3, 4]]), 5), (torch.tensor([[3, 4, 5]]), 6), (torch.tensor([[4, 2, 2]]), 7),
               (torch.tensor([[5, 5, 3]]), 8)]
    replay_buffer = ReplayBuffer()
    objective = GRPOLoss(clip_eps=clip_eps, kl_weight=kl_weight)

    for k in range(2):
        replay_buffer.clear()
        with torch.no_grad():
            for q, a in prompts:
                sequence_ids, returns, action_mask = rollout(model, q, a, num_rollouts=group_size)
                advantages = group_advantages(returns)
                attention_mask = sequence_ids != PAD
                log_probs = sequences_log_probs(model, sequence_ids, attention_mask)
                log_probs_ref = sequences_log_probs(reference_model, sequence_ids, attention_mask)
                kl = approx_kl_divergence(log_probs, log_probs_ref, action_mask)
                replay_buffer.append(Experience(sequence_ids, log_probs, log_probs_ref, returns,
                                                advantages, attention_mask, action_mask, kl))
        model.train()
        items = replay_buffer.items
        for i in range(0, len(items), train_batch_size):
            exp = join_experience_batch(items[i:i + train_batch_size])
            optimizer.zero_grad()
            log_probs = sequences_log_probs(model, sequence_ids=exp.sequences, attention_mask=exp.attention_mask)
            loss, kl = objective(log_probs=log_probs, experience=exp)
            if not loss.isfinite():
                continue
            loss.backward()
            grad_norm = clip_grad_norm_(model.parameters(), max_norm=1.0)
            print(f"{k}: kl={kl.item(): .4f}, grad_norm={grad_norm.item(): .4f}")
            optimizer.step()


if __name__ == "__main__":
    main()
