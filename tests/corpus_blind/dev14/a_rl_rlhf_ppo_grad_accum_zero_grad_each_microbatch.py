# corpus: RLHF PPO trainer with gradient accumulation (alpaca_farm rl_trainer shape) that calls policy.zero_grad() at the start of every micro-batch instead of only after the optimizer step, so each step() uses only the last micro-batch's gradients and the accumulation silently does nothing
# source: https://github.com/tatsu-lab/alpaca_farm/issues/57
from dataclasses import dataclass
from typing import Dict, List

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainingArgs:
    gradient_accumulation_steps: int = 4
    step_per_device_batch_size: int = 4
    noptepochs: int = 1
    cliprange: float = 0.2
    vf_coef: float = 0.1
    max_grad_norm: float = 1.0
    vocab: int = 16
    seq_len: int = 6


class ActorCritic(nn.Module):
    def __init__(self, vocab, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.body = nn.GRU(hidden, hidden, batch_first=True)
        self.policy_head = nn.Linear(hidden, vocab)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, queries, responses):
        h, _ = self.body(self.embed(torch.cat([queries, responses], dim=1)))
        h = h[:, queries.size(1) - 1:-1]
        logprobs = F.log_softmax(self.policy_head(h), -1).gather(2, responses.unsqueeze(-1)).squeeze(-1)
        return {"logprobs": logprobs, "values": self.value_head(h).squeeze(-1)}


def compute_loss(policy, rollouts: Dict[str, torch.Tensor], args: TrainingArgs):
    out = policy(rollouts["queries"], rollouts["responses"])
    ratio = torch.exp(out["logprobs"] - rollouts["logprobs"])
    adv = rollouts["advantages"]
    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1.0 - args.cliprange, 1.0 + args.cliprange)).mean()
    vf_loss = 0.5 * (out["values"] - rollouts["returns"]).pow(2).mean()
    return pg_loss + args.vf_coef * vf_loss, {"pg": pg_loss.item(), "vf": vf_loss.item()}


def make_rollouts(policy, args: TrainingArgs, n: int):
    queries = torch.randint(0, args.vocab, (n, args.seq_len))
    responses = torch.randint(0, args.vocab, (n, args.seq_len))
    with torch.no_grad():
        out = policy(queries, responses)
    rewards = torch.randn(n, 1).expand(-1, args.seq_len)
    return {"queries": queries, "responses": responses, "logprobs": out["logprobs"],
            "advantages": rewards - out["values"], "returns": rewards.clone()}


def split_micro_batches(rollouts, size) -> List[Dict[str, torch.Tensor]]:
    n = rollouts["queries"].size(0)
    return [{k: v[i:i + size] for k, v in rollouts.items()} for i in range(0, n, size)]


class PPOTrainer:
    def __init__(self, policy, args: TrainingArgs):
        self.policy, self.args = policy, args
        self.optimizer = torch.optim.SGD(policy.parameters(), lr=1e-2)

    def step_with_rollouts(self, rollouts):
        stats = []
        for _ in range(self.args.noptepochs):
            micro_batches = split_micro_batches(rollouts, self.args.step_per_device_batch_size)
            for k, micro in enumerate(micro_batches):
                self.policy.zero_grad(set_to_none=True)  # expect: GG201
                loss, s = compute_loss(self.policy, micro, self.args)
                (loss / self.args.gradient_accumulation_steps).backward()
                stats.append(s)
                if (k + 1) % self.args.gradient_accumulation_steps == 0:
                    nn.utils.clip_grad_norm_(self.policy.parameters(), self.args.max_grad_norm)
                    self.optimizer.step()
        return {key: sum(s[key] for s in stats) / len(stats) for key in stats[0]}


def main():
    torch.manual_seed(0)
    args = TrainingArgs()
    policy = ActorCritic(args.vocab)
    trainer = PPOTrainer(policy, args)
    for it in range(2):
        rollouts = make_rollouts(policy, args, args.gradient_accumulation_steps * args.step_per_device_batch_size)
        print("iteration", it, trainer.step_with_rollouts(rollouts))


if __name__ == "__main__":
    main()
