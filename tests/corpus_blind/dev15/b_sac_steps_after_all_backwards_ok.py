# corpus: Dual-Q SAC agent whose update() runs every backward (policy, then value, Q1, Q2) first and only then calls all optimizer.step()s at the end, so no backward meets weights already changed in place.
# source: https://github.com/MrSyee/pg-is-all-you-need/issues/30
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Normal

state_dim = 3
action_dim = 1
hidden = 16
batch_size = 8
capacity = 32
gamma = 0.99
tau = 0.005
learning_rate = 3e-4
gradient_steps = 1
min_Val = torch.tensor(1e-7).float()
device = "cpu"


class Replay_buffer():
    def __init__(self, capacity):
        self.capacity = capacity
        self.state_pool = torch.zeros(self.capacity, state_dim).float()
        self.action_pool = torch.zeros(self.capacity, action_dim).float()
        self.reward_pool = torch.zeros(self.capacity, 1).float()
        self.next_state_pool = torch.zeros(self.capacity, state_dim).float()
        self.done_pool = torch.zeros(self.capacity, 1).float()
        self.num_transition = 0

    def push(self, s, a, r, s_, d):
        index = self.num_transition % self.capacity
        s = torch.tensor(s).float()
        a = torch.tensor(a).float()
        r = torch.tensor(r).float()
        s_ = torch.tensor(s_).float()
        d = torch.tensor(d).float()
        for pool, ele in zip([self.state_pool, self.action_pool, self.reward_pool, self.next_state_pool, self.done_pool],
                             [s, a, r, s_, d]):
            pool[index] = ele
        self.num_transition += 1

    def sample(self, batch_size):
        index = np.random.choice(range(self.capacity), batch_size, replace=False)
        bn_s, bn_a, bn_r, bn_s_, bn_d = self.state_pool[index], self.action_pool[index], self.reward_pool[index],\
                                        self.next_state_pool[index], self.done_pool[index]
        return bn_s, bn_a, bn_r, bn_s_, bn_d


class Actor(nn.Module):
    def __init__(self, state_dim, min_log_std=-20, max_log_std=2):
        super(Actor, self).__init__()
        self.fc1 = nn.Linear(state_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.mu_head = nn.Linear(hidden, action_dim)
        self.log_std_head = nn.Linear(hidden, action_dim)
        self.min_log_std = min_log_std
        self.max_log_std = max_log_std

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        mu = self.mu_head(x)
        log_std_head = F.relu(self.log_std_head(x))
        log_std_head = torch.clamp(log_std_head, self.min_log_std, self.max_log_std)
        return mu, log_std_head


class Critic(nn.Module):
    def __init__(self, state_dim):
        super(Critic, self).__init__()
        self.fc1 = nn.Linear(state_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class Q(nn.Module):
    def __init__(self, state_dim, action_dim):
        super(Q, self).__init__()
        self.fc1 = nn.Linear(state_dim + action_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)

    def forward(self, s, a):
        s = s.reshape(-1, state_dim)
        a = a.reshape(-1, action_dim)
        x = torch.cat((s, a), -1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class SAC():
    def __init__(self):
        self.policy_net = Actor(state_dim).to(device)
        self.value_net = Critic(state_dim).to(device)
        self.Target_value_net = Critic(state_dim).to(device)
        self.Q_net1 = Q(state_dim, action_dim).to(device)
        self.Q_net2 = Q(state_dim, action_dim).to(device)

        self.policy_optimizer = optim.Adam(self.policy_net.parameters(), lr=learning_rate)
        self.value_optimizer = optim.Adam(self.value_net.parameters(), lr=learning_rate)
        self.Q1_optimizer = optim.Adam(self.Q_net1.parameters(), lr=learning_rate)
        self.Q2_optimizer = optim.Adam(self.Q_net2.parameters(), lr=learning_rate)

        self.replay_buffer = Replay_buffer(capacity)
        self.num_training = 0

        self.value_criterion = nn.MSELoss()
        self.Q1_criterion = nn.MSELoss()
        self.Q2_criterion = nn.MSELoss()

        for target_param, param in zip(self.Target_value_net.parameters(), self.value_net.parameters()):
            target_param.data.copy_(param.data)

    def select_action(self, state):
        state = torch.FloatTensor(state).to(device)
        mu, log_sigma = self.policy_net(state)
        sigma = torch.exp(log_sigma)
        dist = Normal(mu, sigma)
        z = dist.sample()
        action = torch.tanh(z).detach().cpu().numpy()
        return action

    def evaluate(self, state):
        batch_mu, batch_log_sigma = self.policy_net(state)
        batch_sigma = torch.exp(batch_log_sigma)
        dist = Normal(batch_mu, batch_sigma)
        noise = Normal(0, 1)
        z = noise.sample()
        action = torch.tanh(batch_mu + batch_sigma * z.to(device))
        log_prob = dist.log_prob(batch_mu + batch_sigma * z.to(device)) - torch.log(1 - action.pow(2) + min_Val)
        return action, log_prob, z, batch_mu, batch_log_sigma

    def update(self):
        for _ in range(gradient_steps):
            bn_s, bn_a, bn_r, bn_s_, bn_d = self.replay_buffer.sample(batch_size)

            target_value = self.Target_value_net(bn_s_)
            next_q_value = bn_r + (1 - bn_d) * gamma * target_value

            excepted_value = self.value_net(bn_s)
            excepted_Q1 = self.Q_net1(bn_s, bn_a)
            excepted_Q2 = self.Q_net2(bn_s, bn_a)
            sample_action, log_prob, z, batch_mu, batch_log_sigma = self.evaluate(bn_s)
            excepted_new_Q = torch.min(self.Q_net1(bn_s, sample_action), self.Q_net2(bn_s, sample_action))
            next_value = excepted_new_Q - log_prob

            V_loss = self.value_criterion(excepted_value, next_value.detach()).mean()
            Q1_loss = self.Q1_criterion(excepted_Q1, next_q_value.detach()).mean()
            Q2_loss = self.Q2_criterion(excepted_Q2, next_q_value.detach()).mean()

            pi_loss = (log_prob - excepted_new_Q).mean()

            self.policy_optimizer.zero_grad()
            pi_loss.backward()
            nn.utils.clip_grad_norm_(self.policy_net.parameters(), 0.5)

            # zero the critics after the policy backward so only their own losses update them
            self.value_optimizer.zero_grad()
            V_loss.backward()
            nn.utils.clip_grad_norm_(self.value_net.parameters(), 0.5)

            self.Q1_optimizer.zero_grad()
            Q1_loss.backward()
            nn.utils.clip_grad_norm_(self.Q_net1.parameters(), 0.5)

            self.Q2_optimizer.zero_grad()
            Q2_loss.backward()
            nn.utils.clip_grad_norm_(self.Q_net2.parameters(), 0.5)

            # all parameter updates happen after every backward of this batch
            self.value_optimizer.step()
            self.Q1_optimizer.step()
            self.Q2_optimizer.step()
            self.policy_optimizer.step()

            for target_param, param in zip(self.Target_value_net.parameters(), self.value_net.parameters()):
                target_param.data.copy_(target_param * (1 - tau) + param * tau)

            self.num_training += 1


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    agent = SAC()
    for i in range(3):
        state = np.random.randn(state_dim).astype(np.float32)
        for t in range(20):
            action = agent.select_action(state)
            next_state = np.random.randn(state_dim).astype(np.float32)
            reward = float(np.random.randn())
            done = t == 19
            agent.replay_buffer.push(state, action, reward, next_state, float(done))
            state = next_state
            if done:
                if agent.replay_buffer.num_transition >= capacity:
                    agent.update()
                break
    assert agent.num_training > 0
    for net in (agent.policy_net, agent.value_net, agent.Q_net1, agent.Q_net2):
        assert all(p.grad is not None for p in net.parameters())
    print("ok: trained", agent.num_training, "updates; all grads populated")


if __name__ == '__main__':
    main()
