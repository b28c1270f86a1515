# corpus: Double-DQN calc_loss that picks next actions with the online net, evaluates them with tgt_net, zeroes terminal values in place and assigns the detached result into the Bellman target, so only the online net's Q(s,a) carries gradient.
# source: https://github.com/PacktPublishing/Deep-Reinforcement-Learning-Hands-On/issues/29
import collections

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

GAMMA = 0.99
BATCH_SIZE = 8
REPLAY_SIZE = 64
LEARNING_RATE = 1e-4
SYNC_TARGET_FRAMES = 5

Experience = collections.namedtuple('Experience', field_names=['state', 'action', 'reward', 'done', 'new_state'])


class DQN(nn.Module):
    def __init__(self, input_shape, n_actions):
        super(DQN, self).__init__()
        self.fc = nn.Sequential(nn.Linear(input_shape, 16), nn.ReLU(), nn.Linear(16, n_actions))

    def forward(self, x):
        return self.fc(x)


class ExperienceBuffer:
    def __init__(self, capacity):
        self.buffer = collections.deque(maxlen=capacity)

    def __len__(self):
        return len(self.buffer)

    def append(self, experience):
        self.buffer.append(experience)

    def sample(self, batch_size):
        indices = np.random.choice(len(self.buffer), batch_size, replace=False)
        states, actions, rewards, dones, next_states = zip(*[self.buffer[idx] for idx in indices])
        return np.array(states), np.array(actions), np.array(rewards, dtype=np.float32), \
            np.array(dones, dtype=np.uint8), np.array(next_states)


def calc_loss(batch, net, tgt_net, device="cpu", double=True):
    states, actions, rewards, dones, next_states = batch

    states_v = torch.tensor(states).to(device)
    next_states_v = torch.tensor(next_states).to(device)
    actions_v = torch.tensor(actions).to(device)
    rewards_v = torch.tensor(rewards).to(device)
    done_mask = torch.BoolTensor(dones).to(device)

    state_action_values = net(states_v).gather(1, actions_v.unsqueeze(-1)).squeeze(-1)
    if double:
        next_state_actions = net(next_states_v).max(1)[1]
        next_state_values = tgt_net(next_states_v).gather(1, next_state_actions.unsqueeze(-1)).squeeze(-1)
    else:
        next_state_values = tgt_net(next_states_v).max(1)[0]
    next_state_values[done_mask] = 0.0

    expected_state_action_values = next_state_values.detach() * GAMMA + rewards_v
    return nn.MSELoss()(state_action_values, expected_state_action_values)


class Agent:
    def __init__(self, exp_buffer, obs_size):
        self.exp_buffer = exp_buffer
        self.obs_size = obs_size
        self._reset()

    def _reset(self):
        self.state = np.random.randn(self.obs_size).astype(np.float32)
        self.total_reward = 0.0

    def play_step(self, net, epsilon=0.0, device="cpu"):
        if np.random.random() < epsilon:
            action = np.random.randint(2)
        else:
            state_v = torch.tensor(np.asarray([self.state])).to(device)
            q_vals_v = net(state_v)
            _, act_v = torch.max(q_vals_v, dim=1)
            action = int(act_v.item())
        new_state = np.random.randn(self.obs_size).astype(np.float32)
        reward = float(np.random.rand())
        is_done = np.random.rand() < 0.1
        self.total_reward += reward
        self.exp_buffer.append(Experience(self.state, action, reward, is_done, new_state))
        self.state = new_state
        if is_done:
            done_reward = self.total_reward
            self._reset()
            return done_reward
        return None


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    net = DQN(4, 2)
    tgt_net = DQN(4, 2)
    tgt_net.load_state_dict(net.state_dict())
    buffer = ExperienceBuffer(REPLAY_SIZE)
    agent = Agent(buffer, 4)
    optimizer = optim.Adam(net.parameters(), lr=LEARNING_RATE)

    for frame_idx in range(1, 20):
        agent.play_step(net, epsilon=0.5)
        if len(buffer) < BATCH_SIZE:
            continue
        if frame_idx % SYNC_TARGET_FRAMES == 0:
            tgt_net.load_state_dict(net.state_dict())
        optimizer.zero_grad()
        batch = buffer.sample(BATCH_SIZE)
        loss_t = calc_loss(batch, net, tgt_net)
        loss_t.backward()
        optimizer.step()

    assert all(p.grad is not None for p in net.parameters())
    assert all(p.grad is None for p in tgt_net.parameters())
    print("ok: online net trained, target net received no gradient")


if __name__ == '__main__':
    main()
