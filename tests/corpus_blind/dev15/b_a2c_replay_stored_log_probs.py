# corpus: Actor-critic agent extended with experience replay that stores the graph-carrying log_prob from choose_action in its memory and backpropagates sampled old log_probs in every learn() call, so a replayed log_prob's graph is walked again after an earlier backward freed it.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/philtabor/Youtube-Code-Repository/issues/19
import numpy as np
import torch as T
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ActorCriticNetwork(nn.Module):
    def __init__(self, lr, input_dims, n_actions, fc1_dims=16, fc2_dims=16):
        super(ActorCriticNetwork, self).__init__()
        self.fc1 = nn.Linear(*input_dims, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, fc2_dims)
        self.pi = nn.Linear(fc2_dims, n_actions)
        self.v = nn.Linear(fc2_dims, 1)
        self.optimizer = optim.Adam(self.parameters(), lr=lr)

    def forward(self, state):
        x = F.relu(self.fc1(state))
        x = F.relu(self.fc2(x))
        return self.pi(x), self.v(x)


class ReplayMemory():
    def __init__(self, size):
        self.size = size
        self.transitions = []

    def store(self, log_prob, state, reward, state_, done):
        if len(self.transitions) >= self.size:
            self.transitions.pop(0)
        self.transitions.append((log_prob, state, reward, state_, done))

    def sample(self, batch_size):
        idx = np.random.choice(len(self.transitions), min(batch_size, len(self.transitions)), replace=False)
        return [self.transitions[i] for i in idx]


class Agent():
    def __init__(self, lr, input_dims, n_actions, gamma=0.99, batch_size=4):
        self.gamma = gamma
        self.batch_size = batch_size
        self.actor_critic = ActorCriticNetwork(lr, input_dims, n_actions)
        self.memory = ReplayMemory(50)
        self.log_prob = None

    def choose_action(self, observation):
        state = T.tensor(np.array([observation]), dtype=T.float)
        probabilities, _ = self.actor_critic.forward(state)
        probabilities = F.softmax(probabilities, dim=1)
        action_probs = T.distributions.Categorical(probabilities)
        action = action_probs.sample()
        self.log_prob = action_probs.log_prob(action)
        return action.item()

    def remember(self, state, reward, state_, done):
        self.memory.store(self.log_prob, state, reward, state_, done)  # expect: GG103

    def learn(self):
        if len(self.memory.transitions) < self.batch_size:
            return
        self.actor_critic.optimizer.zero_grad()
        total_loss = 0
        for log_prob, state, reward, state_, done in self.memory.sample(self.batch_size):
            state = T.tensor(np.array([state]), dtype=T.float)
            state_ = T.tensor(np.array([state_]), dtype=T.float)
            reward = T.tensor(reward, dtype=T.float)
            _, critic_value = self.actor_critic.forward(state)
            _, critic_value_ = self.actor_critic.forward(state_)
            delta = reward + self.gamma * critic_value_ * (1 - int(done)) - critic_value
            actor_loss = -log_prob * delta.detach()
            critic_loss = delta ** 2
            total_loss = total_loss + actor_loss + critic_loss
        total_loss.sum().backward()  # also: GG103
        self.actor_critic.optimizer.step()


def main():
    np.random.seed(0)
    T.manual_seed(0)
    agent = Agent(lr=5e-4, input_dims=[4], n_actions=2, batch_size=4)
    for episode in range(3):
        observation = np.random.randn(4)
        done = False
        step = 0
        score = 0
        while not done:
            action = agent.choose_action(observation)
            observation_ = np.random.randn(4)
            reward = float(np.random.rand())
            step += 1
            done = step == 4
            score += reward
            agent.remember(observation, reward, observation_, done)
            agent.learn()
            observation = observation_
        print('episode', episode, 'score %.2f' % score)


if __name__ == '__main__':
    main()
