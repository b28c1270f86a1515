# corpus: DQN with prioritized replay computes the importance-weighted squared TD error per sample, reuses it for the new priorities and backpropagates it without reducing it to a scalar
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/higgsfield/RL-Adventure/issues/13
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class NaivePrioritizedBuffer:
    def __init__(self, capacity, prob_alpha=0.6):
        self.prob_alpha = prob_alpha
        self.capacity = capacity
        self.buffer = []
        self.pos = 0
        self.priorities = np.zeros((capacity,), dtype=np.float32)

    def push(self, state, action, reward, next_state, done):
        max_prio = self.priorities.max() if self.buffer else 1.0
        if len(self.buffer) < self.capacity:
            self.buffer.append((state, action, reward, next_state, done))
        else:
            self.buffer[self.pos] = (state, action, reward, next_state, done)
        self.priorities[self.pos] = max_prio
        self.pos = (self.pos + 1) % self.capacity

    def sample(self, batch_size, beta=0.4):
        prios = self.priorities[:len(self.buffer)]
        probs = prios ** self.prob_alpha
        probs /= probs.sum()
        indices = np.random.choice(len(self.buffer), batch_size, p=probs)
        samples = [self.buffer[idx] for idx in indices]
        weights = (len(self.buffer) * probs[indices]) ** (-beta)
        weights /= weights.max()
        states, actions, rewards, next_states, dones = zip(*samples)
        return (np.stack(states), np.array(actions), np.array(rewards, dtype=np.float32),
                np.stack(next_states), np.array(dones, dtype=np.float32), indices, weights.astype(np.float32))

    def update_priorities(self, batch_indices, batch_priorities):
        for idx, prio in zip(batch_indices, batch_priorities):
            self.priorities[idx] = prio

    def __len__(self):
        return len(self.buffer)


class DQN(nn.Module):
    def __init__(self, num_inputs, num_actions):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(num_inputs, 64), nn.ReLU(), nn.Linear(64, num_actions))
        self.num_actions = num_actions

    def forward(self, x):
        return self.layers(x)

    def act(self, state, epsilon):
        if random.random() > epsilon:
            with torch.no_grad():
                q_value = self.forward(torch.as_tensor(state).unsqueeze(0))
            return int(q_value.argmax(1).item())
        return random.randrange(self.num_actions)


def compute_td_loss(current_model, target_model, optimizer, replay_buffer, batch_size, gamma=0.99, beta=0.4):
    state, action, reward, next_state, done, indices, weights = replay_buffer.sample(batch_size, beta)
    state = torch.from_numpy(state)
    next_state = torch.from_numpy(next_state)
    action = torch.from_numpy(action)
    reward = torch.from_numpy(reward)
    done = torch.from_numpy(done)
    weights = torch.from_numpy(weights)

    q_values = current_model(state)
    next_q_values = target_model(next_state)
    q_value = q_values.gather(1, action.unsqueeze(1)).squeeze(1)
    next_q_value = next_q_values.max(1)[0]
    expected_q_value = reward + gamma * next_q_value * (1 - done)

    loss = (q_value - expected_q_value.detach()).pow(2) * weights
    prios = loss + 1e-5

    optimizer.zero_grad()
    loss.backward()  # expect: GG109
    replay_buffer.update_priorities(indices, prios.data.cpu().numpy())
    optimizer.step()
    return loss


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    obs_dim, n_actions = 4, 2
    current_model = DQN(obs_dim, n_actions)
    target_model = DQN(obs_dim, n_actions)
    target_model.load_state_dict(current_model.state_dict())
    optimizer = optim.Adam(current_model.parameters(), lr=1e-3)
    replay_buffer = NaivePrioritizedBuffer(1000)
    state = np.random.randn(obs_dim).astype(np.float32)
    for frame_idx in range(1, 80):
        action = current_model.act(state, epsilon=0.3)
        next_state = np.random.randn(obs_dim).astype(np.float32)
        reward, done = float(np.random.rand()), frame_idx % 20 == 0
        replay_buffer.push(state, action, reward, next_state, done)
        state = next_state
        if len(replay_buffer) > 32:
            compute_td_loss(current_model, target_model, optimizer, replay_buffer, 32)
        if frame_idx % 25 == 0:
            target_model.load_state_dict(current_model.state_dict())


if __name__ == "__main__":
    main()
