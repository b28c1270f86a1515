# corpus: PPO with a learned (meta-gradient) reward network: update() computes the discounted returns from rewardnet(state) once, with autograd recording, before the K-epoch loop; every epoch's loss backpropagates through that pre-loop graph, so the second epoch raises
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/metaopt/torchopt/issues/221
import numpy as np
import torch
import torch.nn as nn


class RolloutBuffer:
    def __init__(self):
        self.states, self.actions, self.logprobs, self.rewards_g, self.is_terminals = [], [], [], [], []

    def clear(self):
        self.__init__()


class ActorCritic(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(state_dim, 32), nn.Tanh(), nn.Linear(32, action_dim))
        self.critic = nn.Sequential(nn.Linear(state_dim, 32), nn.Tanh(), nn.Linear(32, 1))

    def act(self, state):
        dist = torch.distributions.Categorical(logits=self.actor(state))
        action = dist.sample()
        return action.detach(), dist.log_prob(action).detach()

    def evaluate(self, state, action):
        dist = torch.distributions.Categorical(logits=self.actor(state))
        return dist.log_prob(action), self.critic(state), dist.entropy()


class RewardNet(nn.Module):
    def __init__(self, state_dim, n_objectives=3):
        super().__init__()
        self.w = nn.Sequential(nn.Linear(state_dim, 16), nn.Tanh(), nn.Linear(16, n_objectives), nn.Softmax(-1))

    def forward(self, state):
        return self.w(state)


class PPO_meta:
    def __init__(self, state_dim, action_dim, lr_actor=3e-4, gamma=0.99, K_epochs=4, eps_clip=0.2):
        self.gamma, self.K_epochs, self.eps_clip = gamma, K_epochs, eps_clip
        self.buffer = RolloutBuffer()
        self.policy = ActorCritic(state_dim, action_dim)
        self.rewardnet = RewardNet(state_dim)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr_actor)
        self.MseLoss = nn.MSELoss()

    def select_action(self, state):
        state = torch.FloatTensor(state)
        action, logprob = self.policy.act(state)
        self.buffer.states.append(state)
        self.buffer.actions.append(action)
        self.buffer.logprobs.append(logprob)
        return action.item()

    def update(self):
        rewards_g, discounted_reward = [], 0
        for reward_g, is_terminal, state in zip(reversed(self.buffer.rewards_g), reversed(self.buffer.is_terminals),
                                                reversed(self.buffer.states)):
            if is_terminal:
                discounted_reward = 0
            w = self.rewardnet(state)
            r = torch.dot(w, torch.FloatTensor(reward_g))
            discounted_reward = r + self.gamma * discounted_reward
            rewards_g.insert(0, discounted_reward)
        rewards_g = torch.stack(rewards_g)
        rewards_g = (rewards_g - rewards_g.mean()) / (rewards_g.std() + 1e-7)  # expect: GG103
        old_states = torch.stack(self.buffer.states).detach()
        old_actions = torch.stack(self.buffer.actions).detach()
        old_logprobs = torch.stack(self.buffer.logprobs).detach()
        for _ in range(self.K_epochs):
            logprobs, state_values, dist_entropy = self.policy.evaluate(old_states, old_actions)
            state_values = torch.squeeze(state_values)
            ratios = torch.exp(logprobs - old_logprobs)
            advantages_g = rewards_g - state_values.detach()  # also: GG103
            surr1 = ratios * advantages_g
            surr2 = torch.clamp(ratios, 1 - self.eps_clip, 1 + self.eps_clip) * advantages_g
            loss = -torch.min(surr1, surr2) + 0.5 * self.MseLoss(state_values, rewards_g) - 0.01 * dist_entropy
            self.optimizer.zero_grad()
            loss.mean().backward()  # also: GG103
            self.optimizer.step()
        self.buffer.clear()


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    agent = PPO_meta(state_dim=4, action_dim=2)
    for episode in range(2):
        state = np.random.randn(4)
        for t in range(20):
            action = agent.select_action(state)
            agent.buffer.rewards_g.append([float(action == 0), float(state[0] > 0), -abs(state[1])])
            agent.buffer.is_terminals.append(t == 19)
            state = 0.9 * state + 0.1 * np.random.randn(4)
        agent.update()
        print("episode", episode)


if __name__ == "__main__":
    main()
