# corpus: attention-model routing policy decodes autoregressively, appending only the selected action's log-prob each step and masking visited nodes out of place; the collected log-probs are stacked into one REINFORCE loss with a shared baseline (correct)
# source: https://github.com/ai4co/rl4co/pull/180
import argparse

import torch
import torch.nn as nn


class AttentionModelPolicy(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4):
        super().__init__()
        self.init_embedding = nn.Linear(2, embed_dim)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(embed_dim, num_heads, dim_feedforward=64, batch_first=True, dropout=0.0), num_layers=2
        )
        self.project_context = nn.Linear(2 * embed_dim, embed_dim, bias=False)
        self.project_keys = nn.Linear(embed_dim, embed_dim, bias=False)
        self.tanh_clipping = 10.0

    def forward(self, locs, decode_type="sampling", only_store_selected_logp=True):
        batch_size, num_loc, _ = locs.shape
        node_embeds = self.encoder(self.init_embedding(locs))
        keys = self.project_keys(node_embeds)
        graph_embed = node_embeds.mean(1)
        mask = torch.zeros(batch_size, num_loc, dtype=torch.bool)
        current = torch.zeros(batch_size, dtype=torch.long)
        mask = mask.scatter(1, current.unsqueeze(-1), True)
        logprobs, actions = [], [current]
        for step in range(num_loc - 1):
            cur_embed = node_embeds.gather(1, current.view(-1, 1, 1).expand(-1, 1, node_embeds.shape[-1])).squeeze(1)
            query = self.project_context(torch.cat([graph_embed, cur_embed], -1))
            logits = torch.einsum("bd,bnd->bn", query, keys) / keys.shape[-1] ** 0.5
            logits = torch.tanh(logits) * self.tanh_clipping
            logits = logits.masked_fill(mask, float("-inf"))
            log_p = torch.log_softmax(logits, dim=-1)
            if decode_type == "sampling":
                current = torch.multinomial(log_p.exp(), 1).squeeze(-1)
            else:
                current = log_p.argmax(-1)
            logprobs.append(log_p.gather(1, current.unsqueeze(-1)).squeeze(-1) if only_store_selected_logp else log_p)
            actions.append(current)
            mask = mask.scatter(1, current.unsqueeze(-1), True)
        return torch.stack(actions, 1), torch.stack(logprobs, 1)


def tour_length(locs, actions):
    ordered = locs.gather(1, actions.unsqueeze(-1).expand(-1, -1, 2))
    return (ordered - ordered.roll(-1, dims=1)).norm(dim=-1).sum(-1)


class REINFORCE:
    def __init__(self, policy, lr):
        self.policy = policy
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=lr)

    def training_step(self, locs):
        actions, logprobs = self.policy(locs, decode_type="sampling")
        reward = -tour_length(locs, actions)
        with torch.no_grad():
            greedy_actions, _ = self.policy(locs, decode_type="greedy")
            baseline = -tour_length(locs, greedy_actions)
        advantage = reward - baseline
        log_likelihood = logprobs.sum(-1)
        loss = -(advantage * log_likelihood).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.item(), "reward": reward.mean().item()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-loc", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    algo = REINFORCE(AttentionModelPolicy(), lr=1e-4)
    for step in range(args.steps):
        print(step, algo.training_step(torch.rand(args.batch_size, args.num_loc, 2)))


if __name__ == "__main__":
    main()
