# corpus: metta-style recurrent PPO stores the LSTM state returned by the policy back into the Experience buffer without detaching it, so each rollout step chains onto the previous step's graph and the whole rollout history stays alive across updates.
# source: https://github.com/Metta-AI/metta/pull/1139
from types import SimpleNamespace
from typing import Dict, Optional

import torch
import torch.nn as nn
from torch import Tensor


class MettaAgent(nn.Module):
    def __init__(self, obs_dim, num_actions, hidden_size=32, num_lstm_layers=2):
        super().__init__()
        self.encoder = nn.Linear(obs_dim, hidden_size)
        self.lstm = nn.LSTM(hidden_size, hidden_size, num_layers=num_lstm_layers)
        self.actor = nn.Linear(hidden_size, num_actions)
        self.critic = nn.Linear(hidden_size, 1)

    def forward(self, obs, lstm_h, lstm_c):
        x = torch.relu(self.encoder(obs)).unsqueeze(0)
        out, (h, c) = self.lstm(x, (lstm_h, lstm_c))
        out = out.squeeze(0)
        return self.actor(out), self.critic(out).squeeze(-1), h, c


class Experience:
    def __init__(self, total_agents, batch_size, obs_dim, hidden_size, num_lstm_layers=2):
        self.obs = torch.zeros(batch_size, total_agents, obs_dim)
        self.actions = torch.zeros(batch_size, total_agents, dtype=torch.long)
        self.logprobs = torch.zeros(batch_size, total_agents)
        self.values = torch.zeros(batch_size, total_agents)
        self.rewards = torch.zeros(batch_size, total_agents)
        self.lstm_h: Dict[int, Tensor] = {0: torch.zeros(num_lstm_layers, total_agents, hidden_size)}
        self.lstm_c: Dict[int, Tensor] = {0: torch.zeros(num_lstm_layers, total_agents, hidden_size)}
        self.batch_size, self.ptr = batch_size, 0

    @property
    def full(self):
        return self.ptr >= self.batch_size

    def store(self, obs, actions, logprobs, values, rewards, env_id: slice,
              lstm_state: Optional[Dict[str, Tensor]] = None):
        self.obs[self.ptr] = obs
        self.actions[self.ptr] = actions
        self.logprobs[self.ptr] = logprobs.detach()
        self.values[self.ptr] = values.detach()
        self.rewards[self.ptr] = rewards
        if lstm_state is not None and env_id.start in self.lstm_h:
            self.lstm_h[env_id.start] = lstm_state["lstm_h"]  # expect: GG104
            self.lstm_c[env_id.start] = lstm_state["lstm_c"]  # also: GG104
        self.ptr += 1

    def get_lstm_state(self, env_id_start):
        return self.lstm_h[env_id_start], self.lstm_c[env_id_start]

    def reset_for_rollout(self):
        self.ptr = 0


def rollout(policy, experience, env_state):
    env_id = slice(0, env_state.shape[0])
    while not experience.full:
        lstm_h, lstm_c = experience.get_lstm_state(env_id.start)
        logits, value, h, c = policy(env_state, lstm_h, lstm_c)
        dist = torch.distributions.Categorical(logits=logits)
        actions = dist.sample()
        rewards = (actions == 0).float()
        experience.store(env_state, actions, dist.log_prob(actions), value, rewards, env_id,
                         lstm_state={"lstm_h": h, "lstm_c": c})
        env_state = torch.randn_like(env_state)
    return env_state


def train(policy, optimizer, experience, cfg):
    advantages = experience.rewards - experience.values
    returns = advantages + experience.values
    for _ in range(cfg.update_epochs):
        zeros = torch.zeros_like(experience.lstm_h[0])
        h, c, new_logprobs, new_values = zeros, zeros, [], []
        for t in range(experience.batch_size):
            logits, value, h, c = policy(experience.obs[t], h, c)
            new_logprobs.append(torch.distributions.Categorical(logits=logits).log_prob(experience.actions[t]))
            new_values.append(value)
        ratio = (torch.stack(new_logprobs) - experience.logprobs).exp()
        pg_loss = -torch.min(ratio * advantages, ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef) * advantages).mean()
        v_loss = 0.5 * (torch.stack(new_values) - returns).pow(2).mean()
        loss = pg_loss + cfg.vf_coef * v_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    cfg = SimpleNamespace(total_agents=4, batch_size=8, obs_dim=6, num_actions=3, hidden_size=32,
                          update_epochs=2, clip_coef=0.1, vf_coef=0.5, epochs=4)
    policy = MettaAgent(cfg.obs_dim, cfg.num_actions, cfg.hidden_size)
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
    experience = Experience(cfg.total_agents, cfg.batch_size, cfg.obs_dim, cfg.hidden_size)
    env_state = torch.randn(cfg.total_agents, cfg.obs_dim)
    for epoch in range(cfg.epochs):
        experience.reset_for_rollout()
        env_state = rollout(policy, experience, env_state)
        print("epoch", epoch, "loss", train(policy, optimizer, experience, cfg))


if __name__ == "__main__":
    main()
