# corpus: Grokking-DRL style DQN computes the TD target from the target network with .detach() (and rebinds the detached target), updates the online network once per batch and Polyak-mixes target weights through .data after the step; gradients reach only the online Q-network.
# source: https://github.com/jewoos2921/RLforHFT/blob/176be3f12abce95549956d888ed95075a0536e67/GrokkingRL/DQN.py
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class FCQ(nn.Module):
    def __init__(self, input_dim, output_dim, hidden_dims=(16, 16), activation_fc=F.relu):
        super().__init__()
        self.activation_fc = activation_fc
        self.input_layer = nn.Linear(input_dim, hidden_dims[0])
        self.hidden_layers = nn.ModuleList(
            nn.Linear(hidden_dims[i], hidden_dims[i + 1]) for i in range(len(hidden_dims) - 1))
        self.output_layer = nn.Linear(hidden_dims[-1], output_dim)

    def _format(self, state):
        x = state
        if not isinstance(x, torch.Tensor):
            x = torch.tensor(x, dtype=torch.float32)
            if x.dim() == 1:
                x = x.unsqueeze(0)
        return x

    def forward(self, state):
        x = self.activation_fc(self.input_layer(self._format(state)))
        for hidden_layer in self.hidden_layers:
            x = self.activation_fc(hidden_layer(x))
        return self.output_layer(x)

    def load(self, experiences):
        states, actions, new_states, rewards, is_terminals = experiences
        states = torch.from_numpy(states).float()
        actions = torch.from_numpy(actions).long()
        new_states = torch.from_numpy(new_states).float()
        rewards = torch.from_numpy(rewards).float()
        is_terminals = torch.from_numpy(is_terminals).float()
        return states, actions, rewards, new_states, is_terminals


class ReplayBuffer:
    def __init__(self, max_size=1000, batch_size=8, state_dim=4):
        self.ss_mem = np.zeros((max_size, state_dim), dtype=np.float32)
        self.as_mem = np.zeros((max_size, 1), dtype=np.int64)
        self.rs_mem = np.zeros((max_size, 1), dtype=np.float32)
        self.ps_mem = np.zeros((max_size, state_dim), dtype=np.float32)
        self.ds_mem = np.zeros((max_size, 1), dtype=np.float32)
        self.max_size, self.batch_size = max_size, batch_size
        self._idx, self.size = 0, 0

    def store(self, sample):
        s, a, r, p, d = sample
        self.ss_mem[self._idx], self.as_mem[self._idx], self.rs_mem[self._idx] = s, a, r
        self.ps_mem[self._idx], self.ds_mem[self._idx] = p, d
        self._idx = (self._idx + 1) % self.max_size
        self.size = min(self.size + 1, self.max_size)

    def sample(self):
        idxs = np.random.choice(self.size, self.batch_size, replace=False)
        return (self.ss_mem[idxs], self.as_mem[idxs], self.ps_mem[idxs], self.rs_mem[idxs], self.ds_mem[idxs])

    def __len__(self):
        return self.size


class EGreedyStrategy:
    def __init__(self, epsilon=0.2):
        self.epsilon = epsilon
        self.exploratory_action_taken = None

    def select_action(self, model, state):
        with torch.no_grad():
            q_values = model(state).cpu().detach().numpy().squeeze()
        if np.random.rand() > self.epsilon:
            action = int(np.argmax(q_values))
        else:
            action = np.random.randint(len(q_values))
        self.exploratory_action_taken = action != np.argmax(q_values)
        return action


class ChainEnv:
    def __init__(self, n=4):
        self.n, self.s = n, 0

    def reset(self):
        self.s = 0
        return np.eye(self.n, dtype=np.float32)[self.s]

    def step(self, action):
        self.s = min(self.s + 1, self.n - 1) if action == 1 else max(self.s - 1, 0)
        done = self.s == self.n - 1
        return np.eye(self.n, dtype=np.float32)[self.s], float(done), done, {}


class DQN:
    def __init__(self, nS=4, nA=2, gamma=0.99, tau=0.1):
        self.online_model = FCQ(nS, nA)
        self.target_model = FCQ(nS, nA)
        self.update_network(tau=1.0)
        self.value_optimizer = optim.RMSprop(self.online_model.parameters(), lr=5e-3)
        self.training_strategy = EGreedyStrategy()
        self.replay_buffer = ReplayBuffer(state_dim=nS)
        self.gamma, self.tau = gamma, tau
        self.episode_reward = []

    def optimize_model(self, experiences):
        states, actions, rewards, next_states, is_terminals = experiences
        batch_size = len(is_terminals)

        max_a_q_sp = self.target_model(next_states).detach().max(1)[0].unsqueeze(1)
        target_q_sa = rewards + (self.gamma * max_a_q_sp * (1 - is_terminals))
        target_q_sa = target_q_sa.detach()

        q_sa = self.online_model(states).gather(1, actions)

        td_error = q_sa - target_q_sa
        value_loss = td_error.pow(2).mul(0.5).mean()
        self.value_optimizer.zero_grad()
        value_loss.backward()
        self.value_optimizer.step()
        return value_loss.item()

    def interaction_step(self, state, env):
        action = self.training_strategy.select_action(self.online_model, state)
        new_state, reward, is_terminal, info = env.step(action)
        self.replay_buffer.store((state, action, reward, new_state, float(is_terminal)))
        self.episode_reward[-1] += reward
        return new_state, is_terminal

    def update_network(self, tau=None):
        tau = self.tau if tau is None else tau
        for target, online in zip(self.target_model.parameters(), self.online_model.parameters()):
            mixed_weights = (1.0 - tau) * target.data + tau * online.data
            target.data.copy_(mixed_weights)

    def train(self, env, max_episodes=6, max_steps=20, warmup=8):
        losses = []
        for episode in range(max_episodes):
            state, is_terminal = env.reset(), False
            self.episode_reward.append(0.0)
            for step in range(max_steps):
                state, is_terminal = self.interaction_step(state, env)
                if len(self.replay_buffer) > warmup:
                    experiences = self.online_model.load(self.replay_buffer.sample())
                    losses.append(self.optimize_model(experiences))
                    self.update_network()
                if is_terminal:
                    break
        return losses


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    agent = DQN()
    losses = agent.train(ChainEnv())
    print(f"{len(losses)} updates, last loss {losses[-1]:.4f}, rewards {agent.episode_reward}")


if __name__ == "__main__":
    main()
