# corpus: DQN agent (network-owned RMSprop optimizer, replace-target schedule, epsilon decay) computes q_next from the target network under torch.no_grad(), zeroes terminal entries in place on that graph-free tensor and backpropagates only the online network (correct)
# source: https://github.com/philtabor/Deep-Q-Learning-Paper-To-Code/issues/9
import numpy as np
import torch as T
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ReplayBuffer:
    def __init__(self, max_size, input_shape):
        self.mem_size = max_size
        self.mem_cntr = 0
        self.state_memory = np.zeros((self.mem_size, *input_shape), dtype=np.float32)
        self.new_state_memory = np.zeros((self.mem_size, *input_shape), dtype=np.float32)
        self.action_memory = np.zeros(self.mem_size, dtype=np.int64)
        self.reward_memory = np.zeros(self.mem_size, dtype=np.float32)
        self.terminal_memory = np.zeros(self.mem_size, dtype=np.bool_)

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
        self.fc2 = nn.Linear(64, 64)
        self.fc3 = nn.Linear(64, n_actions)
        self.optimizer = optim.RMSprop(self.parameters(), lr=lr)
        self.loss = nn.MSELoss()

    def forward(self, state):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(state)))))


class DQNAgent:
    def __init__(self, gamma, epsilon, lr, n_actions, input_dims, mem_size, batch_size,
                 eps_min=0.01, eps_dec=5e-4, replace=10):
        self.gamma = gamma
        self.epsilon = epsilon
        self.n_actions = n_actions
        self.batch_size = batch_size
        self.eps_min = eps_min
        self.eps_dec = eps_dec
        self.replace_target_cnt = replace
        self.action_space = list(range(n_actions))
        self.learn_step_counter = 0
        self.memory = ReplayBuffer(mem_size, input_dims)
        self.q_eval = DeepQNetwork(lr, n_actions, input_dims)
        self.q_next = DeepQNetwork(lr, n_actions, input_dims)

    def choose_action(self, observation):
        if np.random.random() > self.epsilon:
            state = T.tensor(np.array([observation]), dtype=T.float)
            actions = self.q_eval.forward(state)
            return T.argmax(actions).item()
        return np.random.choice(self.action_space)

    def store_transition(self, state, action, reward, state_, done):
        self.memory.store_transition(state, action, reward, state_, done)

    def sample_memory(self):
        state, action, reward, new_state, done = self.memory.sample_buffer(self.batch_size)
        return T.tensor(state), T.tensor(action), T.tensor(reward), T.tensor(new_state), T.tensor(done)

    def replace_target_network(self):
        if self.learn_step_counter % self.replace_target_cnt == 0:
            self.q_next.load_state_dict(self.q_eval.state_dict())

    def decrement_epsilon(self):
        self.epsilon = max(self.epsilon - self.eps_dec, self.eps_min)

    def learn(self):
        if self.memory.mem_cntr < self.batch_size:
            return None
        self.q_eval.optimizer.zero_grad()
        self.replace_target_network()
        states, actions, rewards, states_, dones = self.sample_memory()
        indices = np.arange(self.batch_size)

        q_pred = self.q_eval.forward(states)[indices, actions]
        with T.no_grad():
            q_next = self.q_next.forward(states_).max(dim=1)[0]
        q_next[dones] = 0.0
        q_target = rewards + self.gamma * q_next

        loss = self.q_eval.loss(q_target, q_pred)
        loss.backward()
        self.q_eval.optimizer.step()
        self.learn_step_counter += 1
        self.decrement_epsilon()
        return loss.item()


def main():
    np.random.seed(0)
    T.manual_seed(0)
    agent = DQNAgent(gamma=0.99, epsilon=1.0, lr=1e-4, n_actions=3, input_dims=(6,), mem_size=500, batch_size=16)
    losses = []
    for episode in range(3):
        observation = np.random.randn(6).astype(np.float32)
        for t in range(20):
            action = agent.choose_action(observation)
            observation_ = np.random.randn(6).astype(np.float32)
            reward = float(action == 1)
            done = t == 19
            agent.store_transition(observation, action, reward, observation_, done)
            loss = agent.learn()
            if loss is not None:
                losses.append(loss)
            observation = observation_
    target_grads = [p.grad for p in agent.q_next.parameters()]
    print(f"updates: {len(losses)}, last loss {losses[-1]:.4f}, target grads all None: {all(g is None for g in target_grads)}")


if __name__ == "__main__":
    main()
