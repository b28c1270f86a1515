# corpus: DQN agent records its loss for a cost plot with loss.numpy() while the loss still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, n_features, n_actions):
        super().__init__()
        self.fc1 = nn.Linear(n_features, 10)
        self.out = nn.Linear(10, n_actions)

    def forward(self, x):
        return self.out(torch.relu(self.fc1(x)))


class DeepQNetwork:
    def __init__(self, n_actions, n_features, learning_rate=0.01, reward_decay=0.9,
                 e_greedy=0.9, replace_target_iter=20, memory_size=200, batch_size=16):
        self.n_actions = n_actions
        self.n_features = n_features
        self.gamma = reward_decay
        self.epsilon = e_greedy
        self.replace_target_iter = replace_target_iter
        self.memory_size = memory_size
        self.batch_size = batch_size
        self.learn_step_counter = 0
        self.memory_counter = 0
        self.memory = np.zeros((memory_size, n_features * 2 + 2), dtype=np.float32)
        self.eval_net = Net(n_features, n_actions)
        self.target_net = Net(n_features, n_actions)
        self.optimizer = torch.optim.RMSprop(self.eval_net.parameters(), lr=learning_rate)
        self.loss_func = nn.MSELoss()
        self.cost_his = []

    def store_transition(self, s, a, r, s_):
        transition = np.hstack((s, [a, r], s_))
        index = self.memory_counter % self.memory_size
        self.memory[index, :] = transition
        self.memory_counter += 1

    def choose_action(self, observation):
        x = torch.from_numpy(observation[np.newaxis, :]).float()
        if np.random.uniform() < self.epsilon:
            actions_value = self.eval_net(x)
            action = int(torch.max(actions_value, 1)[1].data.numpy()[0])
        else:
            action = np.random.randint(0, self.n_actions)
        return action

    def learn(self):
        if self.learn_step_counter % self.replace_target_iter == 0:
            self.target_net.load_state_dict(self.eval_net.state_dict())
        upper = min(self.memory_counter, self.memory_size)
        sample_index = np.random.choice(upper, size=self.batch_size)
        batch_memory = self.memory[sample_index, :]
        b_s = torch.from_numpy(batch_memory[:, :self.n_features])
        b_a = torch.from_numpy(batch_memory[:, self.n_features].astype(np.int64)).unsqueeze(1)
        b_r = torch.from_numpy(batch_memory[:, self.n_features + 1]).unsqueeze(1)
        b_s_ = torch.from_numpy(batch_memory[:, -self.n_features:])

        q_eval = self.eval_net(b_s).gather(1, b_a)
        q_next = self.target_net(b_s_).detach()
        q_target = b_r + self.gamma * q_next.max(1)[0].view(self.batch_size, 1)
        loss = self.loss_func(q_eval, q_target)

        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.cost_his.append(loss.numpy())  # expect: GG110
        self.learn_step_counter += 1


def run_maze(RL, steps=40):
    rng = np.random.default_rng(0)
    observation = rng.standard_normal(RL.n_features).astype(np.float32)
    for step in range(steps):
        action = RL.choose_action(observation)
        observation_ = rng.standard_normal(RL.n_features).astype(np.float32)
        reward = float(action == 0)
        RL.store_transition(observation, action, reward, observation_)
        if step > 20 and step % 5 == 0:
            RL.learn()
        observation = observation_


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    RL = DeepQNetwork(n_actions=4, n_features=2)
    run_maze(RL)
