# corpus: CartPole-style actor-critic with two independent networks and two optimizers, actor loss and critic loss backpropagated one after the other with the advantage detached (correct: disjoint graphs)
# source: https://discuss.pytorch.org/t/puzzling-actor-critic-vs-actor-plus-critic-results/103398
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Actor(nn.Module):
    def __init__(self, input_size, n_actions):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(input_size, 128), nn.ReLU(), nn.Linear(128, n_actions))

    def forward(self, x):
        return Categorical(F.softmax(self.net(x), dim=-1))


class Critic(nn.Module):
    def __init__(self, input_size):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(input_size, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, x):
        return self.net(x)


class FakeCartPole:
    def reset(self):
        self.t = 0
        return torch.randn(4)

    def step(self, action):
        self.t += 1
        return torch.randn(4), 1.0, self.t >= 20


def compute_returns(next_value, rewards, masks, gamma=0.99):
    R = next_value
    returns = []
    for step in reversed(range(len(rewards))):
        R = rewards[step] + gamma * R * masks[step]
        returns.insert(0, R)
    return returns


def train(episodes=3):
    torch.manual_seed(0)
    env = FakeCartPole()
    actor, critic = Actor(4, 2), Critic(4)
    optimizer_actor = torch.optim.Adam(actor.parameters(), lr=1e-3)
    optimizer_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for episode in range(episodes):
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
        with torch.no_grad():
            next_value = critic(next_state)
        returns = torch.cat(compute_returns(next_value, rewards, masks)).detach()
        log_probs = torch.cat(log_probs)
        values = torch.cat(values)
        advantage = returns - values

        actor_loss = -(log_probs * advantage.detach()).mean()
        critic_loss = advantage.pow(2).mean()

        optimizer_actor.zero_grad()
        optimizer_critic.zero_grad()
        actor_loss.backward()
        critic_loss.backward()
        optimizer_actor.step()
        optimizer_critic.step()
        print(episode, actor_loss.item(), critic_loss.item())


if __name__ == "__main__":
    train()
