# corpus: DQN update helper computes the online Q(s,a) inside the same torch.no_grad() block as the target-network values, so the TD loss has no graph and its backward fails.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/1183710231/DQN_choose_t/blob/b2f5890e82b7185dee80209d6627c23f8bb9ee91/Algorithms/DQN/dqn_step.py
import random
from collections import deque, namedtuple

import numpy as np
import torch
import torch.nn as nn

Transition = namedtuple("Transition", ("state", "action", "reward", "next_state", "mask"))


class QNet(nn.Module):
    def __init__(self, num_states, num_actions, hidden_size=32):
        super().__init__()
        self.value = nn.Sequential(nn.Linear(num_states, hidden_size), nn.ReLU(),
                                   nn.Linear(hidden_size, hidden_size), nn.ReLU(),
                                   nn.Linear(hidden_size, num_actions))

    def forward(self, states):
        return self.value(states)


class Memory:
    def __init__(self, capacity=1000):
        self.memory = deque(maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        batch = random.sample(self.memory, batch_size)
        return Transition(*zip(*batch))

    def __len__(self):
        return len(self.memory)


def dqn_step(value_net, optimizer_value, value_net_target, states, actions, rewards, next_states, masks, gamma):
    masks = masks.unsqueeze(-1)
    rewards = rewards.unsqueeze(-1)
    actions = actions.unsqueeze(-1)
    """update value net"""
    with torch.no_grad():
        q_values = value_net(states).gather(1, actions)  # expect: GG106
        q_target_next_values = value_net_target(next_states)
        q_target_values = rewards + gamma * masks * \
            q_target_next_values.max(1)[0].view(q_values.size(0), 1)

    value_loss = nn.MSELoss()(q_target_values, q_values)

    optimizer_value.zero_grad()
    value_loss.backward()  # also: GG106
    optimizer_value.step()

    return {"critic_loss": value_loss}


class DQN:
    def __init__(self, num_states, num_actions, gamma=0.99, lr=1e-3, batch_size=16, update_target=10):
        self.num_actions = num_actions
        self.value_net = QNet(num_states, num_actions)
        self.value_net_target = QNet(num_states, num_actions)
        self.value_net_target.load_state_dict(self.value_net.state_dict())
        self.optimizer = torch.optim.Adam(self.value_net.parameters(), lr=lr)
        self.memory = Memory()
        self.gamma, self.batch_size, self.update_target = gamma, batch_size, update_target
        self.num_updates = 0

    def choose_action(self, state, epsilon):
        if random.random() < epsilon:
            return random.randrange(self.num_actions)
        with torch.no_grad():
            return int(self.value_net(torch.as_tensor(state).unsqueeze(0)).argmax(1).item())

    def learn(self):
        batch = self.memory.sample(self.batch_size)
        states = torch.as_tensor(np.stack(batch.state))
        actions = torch.as_tensor(batch.action, dtype=torch.long)
        rewards = torch.as_tensor(batch.reward, dtype=torch.float32)
        next_states = torch.as_tensor(np.stack(batch.next_state))
        masks = torch.as_tensor(batch.mask, dtype=torch.float32)
        log = dqn_step(self.value_net, self.optimizer, self.value_net_target,
                       states, actions, rewards, next_states, masks, self.gamma)
        self.num_updates += 1
        if self.num_updates % self.update_target == 0:
            self.value_net_target.load_state_dict(self.value_net.state_dict())
        return log


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    num_states, num_actions = 4, 2
    agent = DQN(num_states, num_actions)
    state = np.random.randn(num_states).astype(np.float32)
    for t in range(60):
        action = agent.choose_action(state, epsilon=0.3)
        next_state = np.random.randn(num_states).astype(np.float32)
        reward = float(action == (state[0] > 0))
        done = (t + 1) % 20 == 0
        agent.memory.push(state, action, reward, next_state, 0.0 if done else 1.0)
        state = next_state
        if len(agent.memory) >= agent.batch_size:
            log = agent.learn()
    print("critic loss", log["critic_loss"].item())


if __name__ == "__main__":
    main()
