# corpus: PPO agent computes GAE returns/advantages once before its epoch/minibatch loop from a bootstrap value taken with grad; every minibatch loss hangs off that one graph, so the second backward fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/DarylRodrigo/rl_lib/pull/12
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2, hidden=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def act(self, x, action=None):
        dist = Categorical(logits=self.pi(self.body(x)))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy()

    def get_values(self, x):
        return self.v(self.body(x))


class Memory:
    def __init__(self):
        self.states, self.actions, self.log_probs, self.rewards, self.dones, self.values = [], [], [], [], [], []

    def add(self, state, action, log_prob, reward, done, value):
        for buf, item in zip((self.states, self.actions, self.log_probs, self.rewards, self.dones, self.values),
                             (state, action, log_prob, reward, done, value)):
            buf.append(item)

    def compute_gae(self, last_value, next_done, gamma, lam):
        values = torch.stack(self.values).view(-1)
        rewards, dones = torch.tensor(self.rewards), torch.tensor(self.dones)
        advantages = torch.zeros(len(rewards))
        gae = 0.0
        for t in reversed(range(len(rewards))):
            next_value = last_value.view(()) if t == len(rewards) - 1 else values[t + 1]
            mask = 1.0 - (next_done if t == len(rewards) - 1 else dones[t + 1])
            delta = rewards[t] + gamma * next_value * mask - values[t]
            gae = delta + gamma * lam * mask * gae
            advantages[t] = gae
        return advantages + values, advantages

    def tensors(self):
        return torch.stack(self.states), torch.stack(self.actions), torch.stack(self.log_probs)


class PPOAgent:
    def __init__(self, gamma=0.99, lam=0.95, epsilon=0.2, entropy_beta=0.01):
        self.model = ActorCritic()
        self.optimiser = torch.optim.Adam(self.model.parameters(), lr=2.5e-4)
        self.mem = Memory()
        self.gamma, self.lam, self.epsilon, self.entropy_beta = gamma, lam, epsilon, entropy_beta

    def learn(self, num_learn, last_value, next_done, mini_batch_size=4):
        returns, advantages = self.mem.compute_gae(last_value, next_done, self.gamma, self.lam)  # expect: GG103
        states, actions, old_log_probs = self.mem.tensors()
        for epoch in range(num_learn):
            for start in range(0, len(states), mini_batch_size):
                idx = slice(start, start + mini_batch_size)
                _, log_probs, entropy = self.model.act(states[idx], actions[idx])
                ratio = torch.exp(log_probs - old_log_probs[idx])
                adv = advantages[idx]  # also: GG103
                pg_loss = -torch.min(adv * ratio, adv * torch.clamp(ratio, 1 - self.epsilon, 1 + self.epsilon)).mean()
                new_values = self.model.get_values(states[idx]).view(-1)
                value_loss = 0.5 * F.mse_loss(new_values, returns[idx])
                loss = pg_loss + value_loss - self.entropy_beta * entropy.mean()
                self.optimiser.zero_grad()
                loss.backward()  # also: GG103
                nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)
                self.optimiser.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    agent = PPOAgent()
    state = torch.randn(4)
    for step in range(8):
        with torch.no_grad():
            action, log_prob, _ = agent.model.act(state)
            value = agent.model.get_values(state)
        reward, done = float(torch.randn(())), 0.0
        agent.mem.add(state, action, log_prob, reward, done, value)
        state = torch.randn(4)
    last_value = agent.model.get_values(state)
    print("loss", agent.learn(num_learn=2, last_value=last_value, next_done=0.0))


if __name__ == "__main__":
    main()
