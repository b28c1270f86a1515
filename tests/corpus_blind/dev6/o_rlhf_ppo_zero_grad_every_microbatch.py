# corpus: RLHF PPO trainer (alpaca_farm-style RLTrainer.step_with_rollouts) accumulates gradients over micro-batches and steps every k-th one, but clears them with policy.zero_grad() after every micro-batch, so each step only applies the last micro-batch's gradient
# source: https://github.com/tatsu-lab/alpaca_farm/pull/58
import argparse
from typing import Dict, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


def whiten(values: Tensor, shift_mean=True, epsilon=1e-8) -> Tensor:
    mean, var = values.mean(), values.var(unbiased=False)
    whitened = (values - mean) * torch.rsqrt(var + epsilon)
    if not shift_mean:
        whitened += mean
    return whitened


class Policy(nn.Module):
    """Tiny autoregressive LM standing in for the instruction-following policy."""

    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.lm_head = nn.Linear(hidden, vocab_size)

    def forward(self, queries, responses, temperature=1.0):
        input_ids = torch.cat([queries, responses], dim=1)
        h, _ = self.rnn(self.embed(input_ids))
        logits = self.lm_head(h[:, queries.size(1) - 1: -1]) / temperature
        logprobs_all = F.log_softmax(logits, dim=-1)
        logprobs = torch.gather(logprobs_all, 2, responses.unsqueeze(-1)).squeeze(-1)
        entropies = -(logprobs_all.exp() * logprobs_all).sum(-1)
        return {"logprobs": logprobs, "entropies": entropies, "last_hidden_state": h}

    @torch.no_grad()
    def respond(self, queries, response_len, temperature=1.0):
        responses = []
        inp = queries
        for _ in range(response_len):
            h, _ = self.rnn(self.embed(inp))
            probs = F.softmax(self.lm_head(h[:, -1]) / temperature, dim=-1)
            nxt = torch.multinomial(probs, 1)
            responses.append(nxt)
            inp = torch.cat([inp, nxt], dim=1)
        return {"responses": torch.cat(responses, dim=1)}


class Value(nn.Module):
    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, queries, responses):
        input_ids = torch.cat([queries, responses], dim=1)
        h, _ = self.rnn(self.embed(input_ids))
        return {"values": self.value_head(h[:, queries.size(1) - 1: -1]).squeeze(-1)}


class ActorCritic(nn.Module):
    def __init__(self, policy: Policy, value_model: Value):
        super().__init__()
        self.policy = policy
        self.value_model = value_model

    def forward(self, queries, responses, temperature=1.0):
        o1 = self.policy(queries, responses, temperature)
        o2 = self.value_model(queries, responses)
        return {**o1, **o2}

    def respond(self, queries, response_len, temperature=1.0):
        return self.policy.respond(queries, response_len, temperature)


class RewardModel(nn.Module):
    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.head = nn.Linear(hidden, 1)

    def forward(self, input_ids):
        return {"rewards": self.head(self.embed(input_ids).mean(1)).squeeze(-1)}


class PPOTrainer(object):
    def __init__(self, args, policy: ActorCritic, ref_policy: Policy, reward_model: RewardModel):
        self.args = args
        self.policy = policy
        self.ref_policy = ref_policy
        self.reward_model = reward_model
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=args.learning_rate, eps=1e-5)

    @torch.no_grad()
    def rollout(self, queries_data) -> Dict[str, Tensor]:
        self.policy.eval()
        self.ref_policy.eval()
        self.reward_model.eval()
        rollouts = []
        for queries in queries_data:
            responses = self.policy.respond(queries, self.args.response_len, self.args.temperature)["responses"]
            policy_outputs = self.policy(queries, responses, temperature=self.args.temperature)
            ref_outputs = self.ref_policy(queries, responses, temperature=self.args.temperature)
            rewards = self.reward_model(torch.cat([queries, responses], dim=1))["rewards"]
            kl = policy_outputs["logprobs"] - ref_outputs["logprobs"]
            non_score_rewards = -self.args.kl_coef * kl
            shaped_rewards = non_score_rewards.clone()
            shaped_rewards[:, -1] += rewards
            rollouts.append({"queries": queries, "responses": responses,
                             "logprobs": policy_outputs["logprobs"], "values": policy_outputs["values"],
                             "rewards": rewards, "shaped_rewards": shaped_rewards})
        rollouts = {k: torch.cat([r[k] for r in rollouts]) for k in rollouts[0]}
        advantages = self._estimate_advantage(rollouts["shaped_rewards"], rollouts["values"])
        return {**rollouts, **advantages}

    def _estimate_advantage(self, rewards: Tensor, values: Tensor) -> Dict[str, Tensor]:
        lastgaelam = 0
        advantages_reversed = []
        gen_length = self.args.response_len
        for t in reversed(range(gen_length)):
            nextvalues = values[:, t + 1] if t < gen_length - 1 else 0.0
            delta = rewards[:, t] + self.args.gamma * nextvalues - values[:, t]
            lastgaelam = delta + self.args.gamma * self.args.lam * lastgaelam
            advantages_reversed.append(lastgaelam)
        advantages = torch.stack(advantages_reversed[::-1], dim=1)
        returns = advantages + values
        advantages = whiten(advantages, shift_mean=True)
        return dict(returns=returns, advantages=advantages)

    def get_rollouts_dataloader(self, rollouts: Dict[str, Tensor]):
        n = rollouts["queries"].size(0)
        perm = torch.randperm(n)
        bs = self.args.step_per_device_batch_size
        return [{k: v[perm[i: i + bs]] for k, v in rollouts.items()} for i in range(0, n, bs)]

    def compute_loss(self, rollouts: Dict[str, Tensor]) -> Tuple[Tensor, Dict]:
        values, old_logprob, returns, advantages, queries, responses = (
            rollouts[k] for k in ("values", "logprobs", "returns", "advantages", "queries", "responses"))
        outputs = self.policy(queries, responses, temperature=self.args.temperature)

        vpred = outputs["values"]
        vpredclipped = torch.clamp(vpred, min=values - self.args.cliprange_value, max=values + self.args.cliprange_value)
        vf_losses1 = (vpred - returns) ** 2.0
        vf_losses2 = (vpredclipped - returns) ** 2.0
        vf_loss = 0.5 * torch.maximum(vf_losses1, vf_losses2).mean()

        logprob = outputs["logprobs"]
        ratio = torch.exp(logprob - old_logprob)
        pg_losses = -advantages * ratio
        pg_losses2 = -advantages * torch.clamp(ratio, min=1.0 - self.args.cliprange, max=1.0 + self.args.cliprange)
        pg_loss = torch.maximum(pg_losses, pg_losses2).mean()

        loss = pg_loss + self.args.vf_coef * vf_loss
        approxkl = 0.5 * ((logprob - old_logprob) ** 2.0).mean()
        stats = dict(loss=dict(policy=pg_loss.item(), value=vf_loss.item(), total=loss.item()),
                     policy=dict(approxkl=approxkl.item(), entropy=outputs["entropies"].mean().item()))
        return loss, stats

    def step_with_rollouts(self, rollouts):
        """Based on fixed rollouts, run PPO for multiple epochs."""
        self.policy.train()
        rollouts_dataloader = self.get_rollouts_dataloader(rollouts=rollouts)
        stats_list = []
        for epoch_idx in range(self.args.noptepochs):
            for batch_idx, rollouts_batch in enumerate(rollouts_dataloader, 1):
                ppo_loss, stats_for_this_step = self.compute_loss(rollouts_batch)
                ppo_loss.backward()
                if batch_idx % self.args.gradient_accumulation_steps == 0:
                    if self.args.max_grad_norm is not None:
                        torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.args.max_grad_norm)
                    stats_list.append(stats_for_this_step)
                    self.optimizer.step()
                self.policy.zero_grad(set_to_none=True)  # expect: GG201
        return stats_list

    def step(self, train_dataloader, step_idx: int):
        queries_batches = [next(train_dataloader) for _ in range(self.args.rollout_accumulation_steps)]
        rollouts = self.rollout(queries_batches)
        train_stats = self.step_with_rollouts(rollouts)
        return {"step": step_idx, "reward": rollouts["rewards"].mean().item(),
                "loss": sum(s["loss"]["total"] for s in train_stats) / max(1, len(train_stats))}


def infinite_queries(vocab_size, batch_size, query_len, seed=0):
    g = torch.Generator().manual_seed(seed)
    while True:
        yield torch.randint(0, vocab_size, (batch_size, query_len), generator=g)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--total_steps", type=int, default=2)
    parser.add_argument("--rollout_batch_size", type=int, default=8)
    parser.add_argument("--rollout_accumulation_steps", type=int, default=2)
    parser.add_argument("--step_per_device_batch_size", type=int, default=4)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=2)
    parser.add_argument("--noptepochs", type=int, default=2)
    parser.add_argument("--response_len", type=int, default=6)
    parser.add_argument("--learning_rate", type=float, default=1e-4)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--kl_coef", type=float, default=0.2)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--lam", type=float, default=1.0)
    parser.add_argument("--cliprange", type=float, default=0.2)
    parser.add_argument("--cliprange_value", type=float, default=0.2)
    parser.add_argument("--vf_coef", type=float, default=0.1)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    args = parser.parse_args()

    torch.manual_seed(0)
    vocab_size, hidden = 20, 16
    policy = Policy(vocab_size, hidden)
    ref_policy = Policy(vocab_size, hidden)
    ref_policy.load_state_dict(policy.state_dict())
    actor_critic = ActorCritic(policy=policy, value_model=Value(vocab_size, hidden))
    trainer = PPOTrainer(args, actor_critic, ref_policy, RewardModel(vocab_size, hidden))
    train_dataloader = infinite_queries(vocab_size, args.rollout_batch_size, query_len=5)
    for step_idx in range(args.total_steps):
        print(trainer.step(train_dataloader, step_idx))


if __name__ == "__main__":
    main()
