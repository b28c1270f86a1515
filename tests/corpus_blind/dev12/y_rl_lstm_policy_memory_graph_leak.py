# corpus: ML-Agents-style recurrent policy: the LSTM memories returned while choosing actions still carry autograd history and are retained per agent and fed back every env step, so the autograd graph kept alive by the retained memories grows with every step (silent memory leak; printed node count keeps rising)
# source: https://github.com/Unity-Technologies/ml-agents/pull/5048
import random
from dataclasses import dataclass, field
from typing import Dict, List

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical


@dataclass
class AgentExperience:
    obs: np.ndarray
    action: int
    reward: float
    done: bool
    memory: np.ndarray


@dataclass
class AgentBuffer:
    experiences: List[AgentExperience] = field(default_factory=list)

    def append(self, exp: AgentExperience):
        self.experiences.append(exp)

    def clear(self):
        self.experiences = []

    def __len__(self):
        return len(self.experiences)


class LSTMActor(nn.Module):
    def __init__(self, obs_size, act_size, memory_size=16):
        super().__init__()
        self.half = memory_size // 2
        self.memory_size = memory_size
        self.encoder = nn.Sequential(nn.Linear(obs_size, self.half), nn.ReLU())
        self.lstm = nn.LSTMCell(self.half, self.half)
        self.action_head = nn.Linear(self.half, act_size)

    def forward(self, obs, memories):
        h, c = memories[:, :self.half], memories[:, self.half:]
        h, c = self.lstm(self.encoder(obs), (h, c))
        logits = self.action_head(h)
        return logits, torch.cat([h, c], dim=-1)


class TorchPolicy:
    def __init__(self, obs_size, act_size):
        self.actor = LSTMActor(obs_size, act_size)
        self.retained_memories: Dict[str, torch.Tensor] = {}
        self.optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-3)

    def retrieve_memories(self, agent_id):
        if agent_id not in self.retained_memories:
            return torch.zeros(1, self.actor.memory_size)
        return self.retained_memories[agent_id]

    def save_memories(self, agent_id, memories):
        self.retained_memories[agent_id] = memories  # expect: GG301

    def evaluate(self, agent_id, obs):
        memories = self.retrieve_memories(agent_id)
        logits, memories = self.actor(torch.as_tensor(obs).unsqueeze(0), memories)
        action = Categorical(logits=logits).sample()
        self.save_memories(agent_id, memories)
        return int(action.item()), memories.detach().numpy()[0]

    def update(self, buffer: AgentBuffer, seq_len=4):
        obs = torch.as_tensor(np.stack([e.obs for e in buffer.experiences]))
        actions = torch.as_tensor([e.action for e in buffer.experiences])
        rewards = torch.as_tensor([e.reward for e in buffer.experiences])
        init_mem = torch.as_tensor(np.stack([e.memory for e in buffer.experiences[::seq_len]]))
        total = 0.0
        for s in range(0, len(buffer), seq_len):
            mem = init_mem[s // seq_len].unsqueeze(0)
            for t in range(s, min(s + seq_len, len(buffer))):
                logits, mem = self.actor(obs[t].unsqueeze(0), mem)
                total = total - Categorical(logits=logits).log_prob(actions[t]) * rewards[t]
        loss = (total / len(buffer)).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def count_graph_nodes(t, limit=100000):
    seen, stack = set(), [t.grad_fn]
    while stack and len(seen) < limit:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        stack.extend(nxt for nxt, _ in fn.next_functions)
    return len(seen)


class ToyEnv:
    def __init__(self, n_agents=2):
        self.agent_ids = [f"agent-{i}" for i in range(n_agents)]

    def reset(self):
        self.state = {a: np.random.randn(4).astype(np.float32) for a in self.agent_ids}
        return self.state

    def step(self, actions):
        rewards = {}
        for a, act in actions.items():
            self.state[a] = (0.9 * self.state[a] + 0.1 * (act - 1)).astype(np.float32)
            rewards[a] = float(-abs(self.state[a][0]))
        return self.state, rewards


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    env = ToyEnv()
    policy = TorchPolicy(obs_size=4, act_size=3)
    buffers = {a: AgentBuffer() for a in env.agent_ids}
    obs = env.reset()
    for step in range(1, 61):
        actions, mems = {}, {}
        for agent_id in env.agent_ids:
            actions[agent_id], mems[agent_id] = policy.evaluate(agent_id, obs[agent_id])
        next_obs, rewards = env.step(actions)
        for agent_id in env.agent_ids:
            buffers[agent_id].append(AgentExperience(obs[agent_id], actions[agent_id], rewards[agent_id], False, mems[agent_id]))
        obs = next_obs
        if step % 20 == 0:
            for agent_id in env.agent_ids:
                policy.update(buffers[agent_id])
                buffers[agent_id].clear()
            retained = policy.retained_memories["agent-0"]
            print(f"step {step}: graph nodes kept alive by retained memory = {count_graph_nodes(retained)}")


if __name__ == "__main__":
    main()
