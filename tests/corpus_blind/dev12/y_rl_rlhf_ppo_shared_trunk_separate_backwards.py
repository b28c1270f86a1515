# corpus: RLHF PPO trainer (PaLM-rlhf style) whose actor and critic heads share one recurrent trunk forward: the policy loss is backpropagated (freeing the trunk graph), then the value loss from the same forward is backpropagated separately
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/lucidrains/PaLM-rlhf-pytorch/issues/61
import random
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

Memory = namedtuple("Memory", ["sequence", "action_mask", "action_prob", "action_log_prob", "reward", "value"])


def log_prob(prob, indices):
    return torch.log(prob.gather(-1, indices[..., None]).squeeze(-1).clamp(min=1e-20))


def masked_mean(t, mask, dim=None):
    t = t.masked_fill(~mask, 0.0)
    return t.sum(dim=dim) / mask.sum(dim=dim).clamp(min=1)


def masked_entropy(prob, mask):
    entropies = (prob * torch.log(prob.clamp(min=1e-20))).sum(dim=-1)
    return -masked_mean(entropies, mask)


def clipped_value_loss(values, rewards, old_values, clip):
    value_clipped = old_values + (values - old_values).clamp(-clip, clip)
    value_loss_1 = (value_clipped.flatten() - rewards) ** 2
    value_loss_2 = (values.flatten() - rewards) ** 2
    return torch.max(value_loss_1, value_loss_2)


class ActorCritic(nn.Module):
    """Tiny stand-in for PaLM: one shared embedding + GRU trunk, an LM head and a value head."""

    def __init__(self, num_tokens=12, dim=16):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.trunk = nn.GRU(dim, dim, batch_first=True)
        self.actor_head = nn.Linear(dim, num_tokens)
        self.value_head = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, 1))

    def actor_parameters(self):
        return list(self.token_emb.parameters()) + list(self.trunk.parameters()) + list(self.actor_head.parameters())

    def critic_parameters(self):
        return list(self.value_head.parameters())

    def forward(self, x, mask=None):
        hidden, _ = self.trunk(self.token_emb(x))
        action_logits = self.actor_head(hidden)
        if mask is None:
            pooled = hidden.mean(dim=1)
        else:
            pooled = masked_mean(hidden, mask[..., None], dim=1)
        values = self.value_head(pooled).squeeze(-1)
        return action_logits, values

    @torch.no_grad()
    def generate(self, prompt, steps):
        seq = prompt
        for _ in range(steps):
            logits, _ = self.forward(seq)
            probs = logits[:, -1].softmax(dim=-1)
            nxt = torch.multinomial(probs, 1)
            seq = torch.cat((seq, nxt), dim=-1)
        action_logits, value = self.forward(seq)
        return seq, action_logits, value


class RewardModel(nn.Module):
    def __init__(self, num_tokens=12):
        super().__init__()
        self.register_buffer("token_scores", torch.linspace(-1, 1, num_tokens))

    def forward(self, seq):
        return self.token_scores[seq].mean(dim=-1)


class RLHFTrainer:
    def __init__(self, actor_critic, reward_model, prompts, epochs=2, eps_clip=0.2, value_clip=0.4, beta_s=0.01):
        self.actor_critic = actor_critic
        self.reward_model = reward_model
        self.prompts = prompts
        self.epochs = epochs
        self.eps_clip = eps_clip
        self.value_clip = value_clip
        self.beta_s = beta_s
        self.actor_optim = torch.optim.Adam(actor_critic.actor_parameters(), lr=1e-3)
        self.critic_optim = torch.optim.Adam(actor_critic.critic_parameters(), lr=1e-3)

    def learn(self, memories):
        sequences = torch.stack([m.sequence for m in memories])
        action_masks = torch.stack([m.action_mask for m in memories])
        old_action_probs = torch.stack([m.action_prob for m in memories])
        old_log_probs = torch.stack([m.action_log_prob for m in memories])
        rewards = torch.stack([m.reward for m in memories])
        old_values = torch.stack([m.value for m in memories])

        self.actor_critic.train()
        for _ in range(self.epochs):
            action_logits, values = self.actor_critic(sequences, mask=action_masks)
            action_probs = action_logits.softmax(dim=-1)
            action_log_probs = log_prob(action_probs, sequences)
            entropies = masked_entropy(action_probs, mask=action_masks)

            ratios = (action_log_probs - old_log_probs).exp()
            advantages = (rewards - old_values)
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-5)
            advantages = advantages[:, None]
            surr1 = ratios * advantages
            surr2 = ratios.clamp(1 - self.eps_clip, 1 + self.eps_clip) * advantages
            policy_loss = -masked_mean(torch.min(surr1, surr2), action_masks) - self.beta_s * entropies

            loss = policy_loss.mean()
            loss.backward()  # expect: GG102
            self.actor_optim.step()
            self.actor_optim.zero_grad()

            value_loss = clipped_value_loss(values, rewards.detach(), old_values, self.value_clip)
            value_loss = value_loss.mean()
            value_loss.backward()  # also: GG102
            self.critic_optim.step()
            self.critic_optim.zero_grad()
            print(f"policy_loss: {loss.item():.3f} critic_loss: {value_loss.item():.3f}")

    def train(self, num_episodes=2, max_timesteps=4, update_timesteps=4, gen_len=4):
        memories = []
        time = 0
        for eps in range(num_episodes):
            for timestep in range(max_timesteps):
                time += 1
                prompt = self.prompts[random.randrange(len(self.prompts))][None]
                sequence, action_logits, value = self.actor_critic.generate(prompt, gen_len)
                action_prob = action_logits.softmax(dim=-1)
                action_log_prob = log_prob(action_prob, sequence)
                mask = torch.arange(sequence.shape[-1]) >= prompt.shape[-1]
                reward = self.reward_model(sequence)
                memories.append(Memory(sequence[0], mask, action_prob[0], action_log_prob[0], reward[0], value[0]))
                if time % update_timesteps == 0:
                    self.learn(memories)
                    memories.clear()


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    prompts = torch.randint(0, 12, (5, 3))
    trainer = RLHFTrainer(ActorCritic(), RewardModel(), prompts)
    trainer.train()


if __name__ == "__main__":
    main()
