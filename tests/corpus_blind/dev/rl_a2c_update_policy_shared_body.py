# corpus: actor-critic with a shared body; update_policy() backprops policy and value losses separately
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/bentrevett/pytorch-rl/issues/2
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(input_dim, hidden_dim), nn.ReLU())
        self.actor = nn.Linear(hidden_dim, output_dim)
        self.critic = nn.Linear(hidden_dim, 1)

    def forward(self, state):
        h = self.body(state)
        return self.actor(h), self.critic(h)


def calculate_returns(rewards, discount_factor, normalize=True):
    returns = []
    R = 0.0
    for r in reversed(rewards):
        R = r + R * discount_factor
        returns.insert(0, R)
    returns = torch.tensor(returns)
    if normalize:
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    return returns


def train_episode(policy, n_steps, discount_factor):
    log_prob_actions, values, rewards = [], [], []
    state = torch.randn(4)
    for _ in range(n_steps):
        action_pred, value_pred = policy(state.unsqueeze(0))
        dist = Categorical(logits=action_pred)
        action = dist.sample()
        log_prob_actions.append(dist.log_prob(action))
        values.append(value_pred)
        rewards.append(float(action.item() == 0))
        state = torch.randn(4)
    log_prob_actions = torch.cat(log_prob_actions)
    values = torch.cat(values).squeeze(-1)
    returns = calculate_returns(rewards, discount_factor)
    return returns, log_prob_actions, values


def update_policy(returns, log_prob_actions, values, optimizer):
    returns = returns.detach()
    advantages = returns - values.detach()
    policy_loss = -(advantages * log_prob_actions).sum()
    value_loss = F.smooth_l1_loss(values, returns).sum()
    optimizer.zero_grad()
    policy_loss.backward()  # expect: GG102
    value_loss.backward()  # also: GG102
    optimizer.step()
    return policy_loss.item(), value_loss.item()


def main():
    torch.manual_seed(0)
    policy = ActorCritic(4, 32, 2)
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    for episode in range(3):
        returns, log_prob_actions, values = train_episode(policy, 10, 0.99)
        update_policy(returns, log_prob_actions, values, optimizer)


if __name__ == "__main__":
    main()
