# corpus: Dreamer-style model-based agent: imagined lambda-return targets are built through the value model, then the value optimizer steps before the action loss (built from those same targets) is backpropagated, so the action backward finds the value weights changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/cross32768/Dreamer_PyTorch/issues/2
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_


class TransitionModel(nn.Module):
    """Deterministic stand-in for the RSSM prior: (state, action) -> next state."""

    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim + action_dim, hidden), nn.ELU(), nn.Linear(hidden, state_dim))

    def forward(self, state, action):
        return state + self.net(torch.cat([state, action], dim=-1))


class RewardModel(nn.Module):
    def __init__(self, state_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, hidden), nn.ELU(), nn.Linear(hidden, 1))

    def forward(self, state):
        return self.net(state)


class ValueModel(nn.Module):
    def __init__(self, state_dim, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(state_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)

    def forward(self, state):
        return self.fc3(F.elu(self.fc2(F.elu(self.fc1(state)))))


class ActionModel(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, hidden), nn.ELU(), nn.Linear(hidden, action_dim))

    def forward(self, state):
        return torch.tanh(self.net(state))


def lambda_target(rewards, values, gamma, lambda_):
    """TD(lambda) targets over an imagined trajectory of shape [horizon, batch, 1]."""
    horizon = rewards.shape[0]
    targets = []
    next_target = values[-1]
    for t in reversed(range(horizon)):
        next_value = values[t + 1] if t + 1 < horizon else values[-1]
        next_target = rewards[t] + gamma * ((1 - lambda_) * next_value + lambda_ * next_target)
        targets.insert(0, next_target)
    return torch.stack(targets)


def imagine(start_states, transition, action_model, horizon):
    states = []
    state = start_states
    for _ in range(horizon):
        action = action_model(state)
        state = transition(state, action)
        states.append(state)
    return torch.stack(states)


def train_behavior(models, optimizers, start_states, args):
    transition, reward_model, value_model, action_model = models
    value_optimizer, action_optimizer = optimizers

    imaginated_states = imagine(start_states, transition, action_model, args.horizon)
    flatten_states = imaginated_states.view(-1, args.state_dim)
    imaginated_rewards = reward_model(flatten_states).view(args.horizon, -1, 1)
    imaginated_values = value_model(flatten_states).view(args.horizon, -1, 1)
    lambda_target_values = lambda_target(imaginated_rewards, imaginated_values, args.gamma, args.lambda_)

    # update value model
    value_loss = 0.5 * F.mse_loss(value_model(flatten_states.detach()).view(args.horizon, -1, 1),
                                  lambda_target_values.detach())
    value_optimizer.zero_grad()
    value_loss.backward()
    clip_grad_norm_(value_model.parameters(), args.clip_grad_norm)
    value_optimizer.step()  # expect: GG111

    # update action model (multiply -1 for gradient ascent)
    action_loss = -1 * (lambda_target_values.mean())
    action_optimizer.zero_grad()
    action_loss.backward()  # also: GG111
    clip_grad_norm_(action_model.parameters(), args.clip_grad_norm)
    action_optimizer.step()
    return value_loss.item(), action_loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state-dim", type=int, default=8)
    parser.add_argument("--action-dim", type=int, default=2)
    parser.add_argument("--horizon", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=6)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lambda_", type=float, default=0.95)
    parser.add_argument("--clip-grad-norm", type=float, default=100.0)
    args = parser.parse_args([])

    torch.manual_seed(0)
    transition = TransitionModel(args.state_dim, args.action_dim)
    reward_model = RewardModel(args.state_dim)
    value_model = ValueModel(args.state_dim)
    action_model = ActionModel(args.state_dim, args.action_dim)
    for p in list(transition.parameters()) + list(reward_model.parameters()):
        p.requires_grad_(False)  # world model is trained separately
    value_optimizer = torch.optim.Adam(value_model.parameters(), lr=8e-5)
    action_optimizer = torch.optim.Adam(action_model.parameters(), lr=8e-5)

    for update in range(2):
        start_states = torch.randn(args.batch_size, args.state_dim)
        losses = train_behavior((transition, reward_model, value_model, action_model),
                                (value_optimizer, action_optimizer), start_states, args)
        print(update, losses)


if __name__ == "__main__":
    main()
