# corpus: REINFORCE agent (Hands-on-RL shape) whose update() zeroes gradients once, walks the episode backwards calling loss.backward() on each step's own fresh log-prob graph to accumulate gradients, and steps the optimizer once after the loop; the returns G are plain floats, so no graph is shared between steps; correct
# source: https://github.com/boyu-ai/Hands-on-RL/issues/7
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class PolicyNet(nn.Module):
    def __init__(self, state_dim, hidden_dim, action_dim):
        super().__init__()
        self.fc1 = nn.Linear(state_dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, action_dim)

    def forward(self, x):
        return F.softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


class REINFORCE:
    def __init__(self, state_dim, hidden_dim, action_dim, learning_rate, gamma):
        self.policy_net = PolicyNet(state_dim, hidden_dim, action_dim)
        self.optimizer = torch.optim.Adam(self.policy_net.parameters(), lr=learning_rate)
        self.gamma = gamma

    def take_action(self, state):
        state = torch.tensor(np.array([state]), dtype=torch.float)
        probs = self.policy_net(state)
        action_dist = torch.distributions.Categorical(probs)
        return action_dist.sample().item()

    def update(self, transition_dict):
        reward_list = transition_dict['rewards']
        state_list = transition_dict['states']
        action_list = transition_dict['actions']
        G = 0
        self.optimizer.zero_grad()
        for i in reversed(range(len(reward_list))):
            reward = reward_list[i]
            state = torch.tensor(np.array([state_list[i]]), dtype=torch.float)
            action = torch.tensor([action_list[i]]).view(-1, 1)
            log_prob = torch.log(self.policy_net(state).gather(1, action))
            G = self.gamma * G + reward
            loss = -log_prob * G
            loss.backward()
        self.optimizer.step()


class ToyEnv:
    def __init__(self, state_dim=4, horizon=20):
        self.state_dim, self.horizon = state_dim, horizon

    def reset(self):
        self.t = 0
        self.state = np.random.randn(self.state_dim).astype(np.float32)
        return self.state

    def step(self, action):
        reward = 1.0 if action == int(self.state[0] > 0) else 0.0
        self.t += 1
        self.state = np.random.randn(self.state_dim).astype(np.float32)
        return self.state, reward, self.t >= self.horizon


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    env = ToyEnv()
    agent = REINFORCE(4, 32, 2, learning_rate=1e-3, gamma=0.98)
    return_list = []
    for i_episode in range(5):
        episode_return = 0
        transition_dict = {'states': [], 'actions': [], 'next_states': [], 'rewards': [], 'dones': []}
        state, done = env.reset(), False
        while not done:
            action = agent.take_action(state)
            next_state, reward, done = env.step(action)
            for key, value in zip(('states', 'actions', 'next_states', 'rewards', 'dones'),
                                  (state, action, next_state, reward, done)):
                transition_dict[key].append(value)
            state = next_state
            episode_return += reward
        return_list.append(episode_return)
        agent.update(transition_dict)
        print("episode", i_episode, "return", episode_return)


if __name__ == "__main__":
    main()
