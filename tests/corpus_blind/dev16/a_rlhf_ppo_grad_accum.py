# corpus: RLHF PPO workflow with a manual outer gradient-accumulation loop over micro-batches, while the trainer's per-micro-batch step clears gradients before each backward; only the last micro-batch's gradient survives to the optimizer step.
# source: https://github.com/hiyouga/ChatGLM-Efficient-Tuning/issues/299
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class PPOConfig:
    learning_rate: float = 1e-3
    mini_batch_size: int = 2
    gradient_accumulation_steps: int = 4
    cliprange: float = 0.2
    cliprange_value: float = 0.2
    vf_coef: float = 0.1
    gamma: float = 1.0
    lam: float = 0.95
    max_grad_norm: float = 1.0


class ValueHeadLM(nn.Module):
    """Tiny causal LM with a scalar value head (stand-in for AutoModelForCausalLMWithValueHead)."""

    def __init__(self, vocab=12, hidden=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.lm_head = nn.Linear(hidden, vocab)
        self.v_head = nn.Linear(hidden, 1)

    def forward(self, input_ids):
        h, _ = self.rnn(self.embed(input_ids))
        return self.lm_head(h), None, self.v_head(h).squeeze(-1)


def logprobs_from_logits(logits, labels):
    logp = F.log_softmax(logits, dim=2)
    return torch.gather(logp, 2, labels.unsqueeze(2)).squeeze(-1)


class PPOTrainer:
    def __init__(self, config, model, ref_model):
        self.config = config
        self.model = model
        self.ref_model = ref_model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)

    @torch.no_grad()
    def batched_forward_pass(self, model, input_ids):
        logits, _, values = model(input_ids)
        return logprobs_from_logits(logits[:, :-1], input_ids[:, 1:]), values[:, :-1]

    def compute_advantages(self, values, rewards):
        lastgaelam = 0
        adv_rev = []
        gen_len = rewards.shape[-1]
        for t in reversed(range(gen_len)):
            nextvalues = values[:, t + 1] if t < gen_len - 1 else 0.0
            delta = rewards[:, t] + self.config.gamma * nextvalues - values[:, t]
            lastgaelam = delta + self.config.gamma * self.config.lam * lastgaelam
            adv_rev.append(lastgaelam)
        advantages = torch.stack(adv_rev[::-1]).transpose(0, 1)
        returns = advantages + values
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        return advantages.detach(), returns.detach()

    def loss(self, old_logprobs, values, logits, vpreds, logprobs, advantages, returns):
        vpredclipped = values + torch.clamp(vpreds - values, -self.config.cliprange_value, self.config.cliprange_value)
        vf_loss = 0.5 * torch.max((vpreds - returns) ** 2, (vpredclipped - returns) ** 2).mean()
        ratio = torch.exp(logprobs - old_logprobs)
        pg_losses = -advantages * ratio
        pg_losses2 = -advantages * torch.clamp(ratio, 1.0 - self.config.cliprange, 1.0 + self.config.cliprange)
        pg_loss = torch.max(pg_losses, pg_losses2).mean()
        return pg_loss, self.config.vf_coef * vf_loss

    def train_minibatch(self, old_logprobs, values, input_ids, advantages, returns):
        self.optimizer.zero_grad()  # expect: GG201
        logits, _, vpreds = self.model(input_ids)
        logprobs = logprobs_from_logits(logits[:, :-1], input_ids[:, 1:])
        loss_p, loss_v = self.loss(old_logprobs, values, logits, vpreds[:, :-1], logprobs, advantages, returns)
        loss = loss_p + loss_v
        loss.backward()
        return {"ppo/loss/policy": loss_p.item(), "ppo/loss/value": loss_v.item()}

    def step(self, input_ids, scores):
        old_logprobs, values = self.batched_forward_pass(self.model, input_ids)
        ref_logprobs, _ = self.batched_forward_pass(self.ref_model, input_ids)
        kl = old_logprobs - ref_logprobs
        rewards = -0.1 * kl
        rewards[:, -1] += scores
        advantages, returns = self.compute_advantages(values, rewards)
        return self.train_minibatch(old_logprobs, values, input_ids, advantages, returns)


class CustomPPOTrainer(PPOTrainer):
    """Workflow-side trainer that accumulates gradients over several PPO micro-batches."""

    def __init__(self, config, model, ref_model, reward_fn):
        super().__init__(config, model, ref_model)
        self.reward_fn = reward_fn

    def generate(self, n):
        return torch.randint(0, 12, (n, 6))

    def ppo_train(self, max_steps=3):
        for step in range(max_steps):
            stats = []
            for _ in range(self.config.gradient_accumulation_steps):
                input_ids = self.generate(self.config.mini_batch_size)
                scores = self.reward_fn(input_ids)
                stats.append(self.step(input_ids, scores))
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
            self.optimizer.step()  # also: GG201
            mean_pg = sum(s["ppo/loss/policy"] for s in stats) / len(stats)
            print(f"step {step}: mean policy loss {mean_pg:.4f}")


def reward_fn(input_ids):
    return (input_ids == 3).float().sum(dim=1)


def main():
    torch.manual_seed(0)
    model = ValueHeadLM()
    ref_model = ValueHeadLM()
    ref_model.load_state_dict(model.state_dict())
    trainer = CustomPPOTrainer(PPOConfig(), model, ref_model, reward_fn)
    trainer.ppo_train()


if __name__ == "__main__":
    main()
