# corpus: GRPO-style RL trainer actor: train_step does forward, loss, backward, optimizer.step and lr_scheduler.step but never zeroes the gradients, so every step also applies all previous steps' gradients
# source: https://github.com/meta-pytorch/torchforge/pull/71
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, PROMPT_LEN, RESP_LEN, GROUP = 12, 4, 6, 4


class TinyPolicyLM(nn.Module):
    def __init__(self, vocab=VOCAB, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        h = self.emb(tokens)
        steps = torch.arange(1, tokens.shape[1] + 1, dtype=h.dtype).view(1, -1, 1)
        h = torch.tanh(self.mix(h.cumsum(dim=1) / steps))  # causal running mean of the prefix
        return self.head(h)


@dataclass
class Episode:
    tokens: torch.Tensor
    advantage: float
    ref_logprobs: torch.Tensor


def compute_logprobs(logits, tokens):
    logits = logits[:, PROMPT_LEN - 1:-1]
    return torch.gather(F.log_softmax(logits, dim=-1), 2, tokens[:, PROMPT_LEN:].unsqueeze(-1)).squeeze(-1)


class GRPOLoss(nn.Module):
    def __init__(self, beta=0.05):
        super().__init__()
        self.beta = beta

    def forward(self, logprobs, ref_logprobs, advantages):
        kl = torch.exp(ref_logprobs - logprobs) - (ref_logprobs - logprobs) - 1
        per_token = torch.exp(logprobs - logprobs.detach()) * advantages.unsqueeze(-1)
        return -(per_token - self.beta * kl).mean()


class RLTrainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.loss = GRPOLoss()
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: 1.0)
        self.step = 0

    def train_step(self, episodes):
        tokens = torch.stack([e.tokens for e in episodes])
        advantages = torch.tensor([e.advantage for e in episodes])
        ref_logprobs = torch.stack([e.ref_logprobs for e in episodes])
        logprobs = compute_logprobs(self.model(tokens), tokens)
        loss = self.loss(logprobs, ref_logprobs, advantages)
        loss.backward()  # also: GG201
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()  # expect: GG201
        self.lr_scheduler.step()
        self.step += 1
        return {"loss": loss.item(), "step": self.step}


@torch.no_grad()
def rollout(policy, ref_model, prompt):
    tokens = prompt.repeat(GROUP, 1)
    for _ in range(RESP_LEN):
        probs = F.softmax(policy(tokens)[:, -1], dim=-1)
        tokens = torch.cat([tokens, torch.multinomial(probs, 1)], dim=1)
    rewards = (tokens[:, PROMPT_LEN:] % 3 == 0).float().sum(1)
    adv = (rewards - rewards.mean()) / (rewards.std() + 1e-4)
    ref_lp = compute_logprobs(ref_model(tokens), tokens)
    return [Episode(tokens[g], adv[g].item(), ref_lp[g]) for g in range(GROUP)]


if __name__ == "__main__":
    torch.manual_seed(0)
    policy, ref_model = TinyPolicyLM(), TinyPolicyLM()
    ref_model.load_state_dict(policy.state_dict())
    trainer = RLTrainer(policy)
    for it in range(4):
        prompt = torch.randint(0, VOCAB, (1, PROMPT_LEN))
        print(trainer.train_step(rollout(policy, ref_model, prompt)))
