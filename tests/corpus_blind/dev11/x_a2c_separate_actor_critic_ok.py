# corpus: actor-critic with two separate networks and two optimizers; actor_loss uses advantage.detach() and returns are detached, so the two backward calls walk disjoint graphs and both nets train
# source: https://github.com/yc930401/Actor-Critic-pytorch/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class ToyCartPole:
    """Tiny stand-in environment: reward 1 per step, episode ends after 6 steps."""

    def __init__(self, state_size=4):
        self.state_size, self.t = state_size, 0

    def reset(self):
        self.t = 0
        return torch.randn(self.state_size)

    def step(self, action):
        self.t += 1
        next_state = torch.randn(self.state_size) + 0.1 * action
        return next_state, 1.0, self.t >= 6


class Actor(nn.Module):
    def __init__(self, state_size, action_size):
        super().__init__()
        self.linear1 = nn.Linear(state_size, 16)
        self.linear2 = nn.Linear(16, action_size)

    def forward(self, state):
        return Categorical(F.softmax(self.linear2(F.relu(self.linear1(state))), dim=-1))


class Critic(nn.Module):
    def __init__(self, state_size):
        super().__init__()
        self.linear1 = nn.Linear(state_size, 16)
        self.linear2 = nn.Linear(16, 1)

    def forward(self, state):
        return self.linear2(F.relu(self.linear1(state)))


def compute_returns(next_value, rewards, masks, gamma=0.99):
    R = next_value
    returns = []
    for step in reversed(range(len(rewards))):
        R = rewards[step] + gamma * R * masks[step]
        returns.insert(0, R)
    return returns


def trainIters(actor, critic, env, n_iters=3):
    optimizerA = optim.Adam(actor.parameters(), lr=1e-3)
    optimizerC = optim.Adam(critic.parameters(), lr=1e-3)
    for it in range(n_iters):
        state = env.reset()
        log_probs, values, rewards, masks = [], [], [], []
        done = False
        while not done:
            dist, value = actor(state), critic(state)
            action = dist.sample()
            next_state, reward, done = env.step(action.item())
            log_probs.append(dist.log_prob(action).unsqueeze(0))
            values.append(value)
            rewards.append(torch.tensor([reward]))
            masks.append(torch.tensor([1.0 - done]))
            state = next_state
        next_value = critic(next_state)
        returns = compute_returns(next_value, rewards, masks)
        log_probs = torch.cat(log_probs)
        returns = torch.cat(returns).detach()
        values = torch.cat(values)
        advantage = returns - values
        actor_loss = -(log_probs * advantage.detach()).mean()
        critic_loss = advantage.pow(2).mean()
        optimizerA.zero_grad()
        optimizerC.zero_grad()
        actor_loss.backward()
        critic_loss.backward()
        optimizerA.step()
        optimizerC.step()
        print(f"iter {it} actor {actor_loss.item():.4f} critic {critic_loss.item():.4f}")


def main():
    torch.manual_seed(0)
    env = ToyCartPole()
    actor, critic = Actor(4, 2), Critic(4)
    a0, c0 = actor.linear1.weight.detach().clone(), critic.linear1.weight.detach().clone()
    trainIters(actor, critic, env)
    print("actor moved", (actor.linear1.weight - a0).abs().max().item(),
          "critic moved", (critic.linear1.weight - c0).abs().max().item())


if __name__ == "__main__":
    main()
