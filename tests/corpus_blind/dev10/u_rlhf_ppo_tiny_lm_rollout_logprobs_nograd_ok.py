# corpus: correct RLHF-style PPO on a tiny causal LM with a value head: rollouts, old log-probs, reference log-probs and values are produced under no_grad and stored, each PPO epoch recomputes log-probs/values with a fresh forward and backpropagates one combined loss
# source: https://github.com/openai/lm-human-preferences/issues/1
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyLMWithValueHead(nn.Module):
    def __init__(self, vocab=12, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab)
        self.value_head = nn.Linear(dim, 1)

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.lm_head(h), self.value_head(h).squeeze(-1)


def token_logprobs(logits, tokens):
    # logits at position t predict token t+1
    logp = F.log_softmax(logits[:, :-1], dim=-1)
    return logp.gather(-1, tokens[:, 1:].unsqueeze(-1)).squeeze(-1)


def reward_model(tokens):
    # toy preference: likes token 3, dislikes token 7
    return (tokens[:, 1:] == 3).float().sum(1) - (tokens[:, 1:] == 7).float().sum(1)


@dataclass
class Rollout:
    tokens: torch.Tensor
    old_logprobs: torch.Tensor
    ref_logprobs: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor


class PPOTrainer:
    def __init__(self, policy, ref_policy, kl_coef=0.1, clip=0.2, ppo_epochs=2):
        self.policy, self.ref = policy, ref_policy.eval()
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
        self.kl_coef, self.clip, self.ppo_epochs = kl_coef, clip, ppo_epochs

    @torch.no_grad()
    def rollout(self, prompts, gen_len=6):
        tokens = prompts
        for _ in range(gen_len):
            logits, _ = self.policy(tokens)
            nxt = torch.multinomial(F.softmax(logits[:, -1], dim=-1), 1)
            tokens = torch.cat([tokens, nxt], dim=1)
        logits, values = self.policy(tokens)
        ref_logits, _ = self.ref(tokens)
        old_lp, ref_lp = token_logprobs(logits, tokens), token_logprobs(ref_logits, tokens)
        rewards = -self.kl_coef * (old_lp - ref_lp)
        rewards[:, -1] += reward_model(tokens)
        return Rollout(tokens, old_lp, ref_lp, values[:, :-1], rewards)

    def update(self, ro: Rollout):
        returns = ro.rewards.flip(1).cumsum(1).flip(1)
        adv = returns - ro.values
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        stats = []
        for _ in range(self.ppo_epochs):
            self.optimizer.zero_grad()
            logits, values = self.policy(ro.tokens)
            logp = token_logprobs(logits, ro.tokens)
            ratio = torch.exp(logp - ro.old_logprobs)
            pg = -torch.min(ratio * adv, ratio.clamp(1 - self.clip, 1 + self.clip) * adv).mean()
            vf = F.mse_loss(values[:, :-1], returns)
            loss = pg + 0.5 * vf
            loss.backward()
            self.optimizer.step()
            stats.append({"pg": pg.item(), "vf": vf.item()})
        return stats[-1]


def main():
    torch.manual_seed(0)
    policy = TinyLMWithValueHead()
    ref = TinyLMWithValueHead()
    ref.load_state_dict(policy.state_dict())
    trainer = PPOTrainer(policy, ref)
    for it in range(3):
        ro = trainer.rollout(torch.zeros(8, 1, dtype=torch.long))
        stats = trainer.update(ro)
        print(it, "reward", reward_model(ro.tokens).mean().item(), stats)


if __name__ == "__main__":
    main()
