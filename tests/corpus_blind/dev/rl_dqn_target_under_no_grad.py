# corpus: DQN agent with numpy replay buffer, target network evaluated under torch.no_grad(), in-place masking of the no-grad target, loss history kept with .item()
# source: https://github.com/philtabor/Deep-Q-Learning-Paper-To-Code/issues/16
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ReplayBuffer:
    def __init__(self, max_size, input_shape):
        self.mem_size = max_size
        self.mem_cntr = 0
        self.state_memory = np.zeros((max_size, *input_shape), dtype=np.float32)
        self.new_state_memory = np.zeros((max_size, *input_shape), dtype=np.float32)
        self.action_memory = np.zeros(max_size, dtype=np.int64)
        self.reward_memory = np.zeros(max_size, dtype=np.float32)
        self.terminal_memory = np.zeros(max_size, dtype=np.bool_)

    def store_transition(self, state, action, reward, state_, done):
        index = self.mem_cntr % self.mem_size
        self.state_memory[index] = state
        self.new_state_memory[index] = state_
        self.action_memory[index] = action
        self.reward_memory[index] = reward
        self.terminal_memory[index] = done
        self.mem_cntr += 1

    def sample_buffer(self, batch_size):
        max_mem = min(self.mem_cntr, self.mem_size)
        batch = np.random.choice(max_mem, batch_size, replace=False)
        return (self.state_memory[batch], self.action_memory[batch], self.reward_memory[batch],
                self.new_state_memory[batch], self.terminal_memory[batch])


class DeepQNetwork(nn.Module):
    def __init__(self, lr, n_actions, input_dims):
        super().__init__()
        self.fc1 = nn.Linear(*input_dims, 64)
        self.fc2 = nn.Linear(64, n_actions)
        self.optimizer = optim.RMSprop(self.parameters(), lr=lr)
        self.loss = nn.MSELoss()

    def forward(self, state):
        return self.fc2(F.relu(self.fc1(state)))


class DQNAgent:
    def __init__(self, gamma, epsilon, lr, n_actions, input_dims, mem_size, batch_size, replace=10):
        self.gamma = gamma
        self.epsilon = epsilon
        self.n_actions = n_actions
        self.batch_size = batch_size
        self.replace_target_cnt = replace
        self.learn_step_counter = 0
        self.memory = ReplayBuffer(mem_size, input_dims)
        self.q_eval = DeepQNetwork(lr, n_actions, input_dims)
        self.q_next = DeepQNetwork(lr, n_actions, input_dims)
        self.loss_history = []

    def choose_action(self, observation):
        if np.random.random() > self.epsilon:
            state = torch.tensor(observation[np.newaxis, :])
            return torch.argmax(self.q_eval(state)).item()
        return int(np.random.choice(self.n_actions))

    def sample_memory(self):
        state, action, reward, new_state, done = self.memory.sample_buffer(self.batch_size)
        return (torch.tensor(state), torch.tensor(action), torch.tensor(reward),
                torch.tensor(new_state), torch.tensor(done))

    def replace_target_network(self):
        if self.learn_step_counter % self.replace_target_cnt == 0:
            self.q_next.load_state_dict(self.q_eval.state_dict())

    def learn(self):
        if self.memory.mem_cntr < self.batch_size:
            return
        self.q_eval.optimizer.zero_grad()
        self.replace_target_network()
        states, actions, rewards, states_, dones = self.sample_memory()
        indices = np.arange(self.batch_size)
        q_pred = self.q_eval(states)[indices, actions]
        with torch.no_grad():
            q_next = self.q_next(states_).max(dim=1)[0]
            q_next[dones] = 0.0
            q_target = rewards + self.gamma * q_next
        loss = self.q_eval.loss(q_target, q_pred)
        loss.backward()
        self.q_eval.optimizer.step()
        self.learn_step_counter += 1
        self.loss_history.append(loss.item())


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    agent = DQNAgent(gamma=0.99, epsilon=0.5, lr=1e-3, n_actions=3, input_dims=(6,),
                     mem_size=500, batch_size=16)
    observation = np.random.randn(6).astype(np.float32)
    for step in range(60):
        action = agent.choose_action(observation)
        observation_ = np.random.randn(6).astype(np.float32)
        done = step % 20 == 19
        agent.memory.store_transition(observation, action, float(action == 0), observation_, done)
        agent.learn()
        observation = observation_
    return agent


if __name__ == "__main__":
    agent = main()
    assert all(p.grad is not None for p in agent.q_eval.parameters())
    assert all(p.grad is None for p in agent.q_next.parameters())
    assert all(isinstance(l, float) for l in agent.loss_history) and len(agent.loss_history) > 0
