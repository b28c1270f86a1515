# corpus: pytorch-rl A2C notebook: log-probs and values are collected in lists and concatenated, advantages/returns are detached, and policy_loss.backward() and value_loss.backward() run on two disjoint graphs (separate actor and critic nets) before one optimizer step; this is fine.
# source: https://github.com/bentrevett/pytorch-rl/issues/3
import numpy as np
import torch
import torch.distributions as distributions
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class MLP(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, dropout=0.5):
        super().__init__()
        self.fc_1 = nn.Linear(input_dim, hidden_dim)
        self.fc_2 = nn.Linear(hidden_dim, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = self.dropout(F.relu(self.fc_1(x)))
        return self.fc_2(x)


class ActorCritic(nn.Module):
    def __init__(self, actor, critic):
        super().__init__()
        self.actor = actor
        self.critic = critic

    def forward(self, state):
        return self.actor(state), self.critic(state)


class CartPoleStub:
    def reset(self):
        self.t = 0
        return np.random.randn(4).astype(np.float32)

    def step(self, action):
        self.t += 1
        return np.random.randn(4).astype(np.float32), 1.0, self.t >= 25 or np.random.rand() < 0.03, {}


def calculate_returns(rewards, discount_factor, normalize=True):
    returns = []
    R = 0
    for r in reversed(rewards):
        R = r + R * discount_factor
        returns.insert(0, R)
    returns = torch.tensor(returns)
    if normalize:
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    return returns


def calculate_advantages(returns, values, normalize=True):
    advantages = returns - values
    if normalize:
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    return advantages


def update_policy(advantages, log_prob_actions, returns, values, optimizer):
    advantages = advantages.detach()
    returns = returns.detach()
    policy_loss = - (advantages * log_prob_actions).sum()
    value_loss = F.smooth_l1_loss(returns, values).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    value_loss.backward()
    optimizer.step()
    return policy_loss.item(), value_loss.item()


def train(env, policy, optimizer, discount_factor):
    policy.train()
    log_prob_actions, values, rewards = [], [], []
    done = False
    episode_reward = 0
    state = env.reset()
    while not done:
        state = torch.FloatTensor(state).unsqueeze(0)
        action_pred, value_pred = policy(state)
        action_prob = F.softmax(action_pred, dim=-1)
        dist = distributions.Categorical(action_prob)
        action = dist.sample()
        log_prob_action = dist.log_prob(action)
        state, reward, done, _ = env.step(action.item())
        log_prob_actions.append(log_prob_action)
        values.append(value_pred)
        rewards.append(reward)
        episode_reward += reward
    log_prob_actions = torch.cat(log_prob_actions)
    values = torch.cat(values).squeeze(-1)
    returns = calculate_returns(rewards, discount_factor)
    advantages = calculate_advantages(returns, values)
    policy_loss, value_loss = update_policy(advantages, log_prob_actions, returns, values, optimizer)
    return policy_loss, value_loss, episode_reward


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    actor = MLP(4, 32, 2)
    critic = MLP(4, 32, 1)
    policy = ActorCritic(actor, critic)
    optimizer = optim.Adam(policy.parameters(), lr=0.01)
    env = CartPoleStub()
    for episode in range(5):
        policy_loss, value_loss, train_reward = train(env, policy, optimizer, 0.99)
        print(f"episode {episode} reward {train_reward:.1f} policy {policy_loss:.3f} value {value_loss:.3f}")


if __name__ == "__main__":
    main()
