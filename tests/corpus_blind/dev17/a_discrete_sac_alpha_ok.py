# corpus: Discrete SAC builds the policy loss before stepping both Q optimizers, but the Q values it uses come from a no_grad pass and alpha is detached, and the temperature loss uses detached log-probs, so each backward/step pair is independent and correct.
# source: https://github.com/alirezakazemipour/Discrete-SAC-PyTorch/issues/1
import random
from collections import namedtuple

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical
from torch.nn import functional as F
from torch.optim.adam import Adam

Transition = namedtuple("Transition", ("state", "reward", "done", "action", "next_state"))


class Memory:
    def __init__(self, memory_size):
        self.memory_size = memory_size
        self.memory = []

    def add(self, *transition):
        self.memory.append(Transition(*transition))
        if len(self.memory) > self.memory_size:
            self.memory.pop(0)

    def sample(self, size):
        return random.sample(self.memory, size)

    def __len__(self):
        return len(self.memory)


class PolicyNetwork(nn.Module):
    def __init__(self, state_shape, n_actions):
        super().__init__()
        self.hidden = nn.Linear(state_shape[0], 32)
        self.logits = nn.Linear(32, n_actions)

    def forward(self, states):
        x = F.relu(self.hidden(states))
        logits = self.logits(x)
        probs = F.softmax(logits, -1)
        z = probs == 0.0
        z = z.float() * 1e-8
        return Categorical(probs), probs + z


class QValueNetwork(nn.Module):
    def __init__(self, state_shape, n_actions):
        super().__init__()
        self.hidden = nn.Linear(state_shape[0], 32)
        self.q_value = nn.Linear(32, n_actions)

    def forward(self, states):
        return self.q_value(F.relu(self.hidden(states)))


class SAC:
    def __init__(self, **config):
        self.config = config
        self.state_shape = config["state_shape"]
        self.n_actions = config["n_actions"]
        self.lr = config["lr"]
        self.gamma = config["gamma"]
        self.batch_size = config["batch_size"]
        self.memory = Memory(memory_size=config["mem_size"])

        self.policy_network = PolicyNetwork(self.state_shape, self.n_actions)
        self.q_value_network1 = QValueNetwork(self.state_shape, self.n_actions)
        self.q_value_network2 = QValueNetwork(self.state_shape, self.n_actions)
        self.q_value_target_network1 = QValueNetwork(self.state_shape, self.n_actions)
        self.q_value_target_network2 = QValueNetwork(self.state_shape, self.n_actions)
        self.hard_update_target_network()

        self.entropy_target = 0.98 * (-np.log(1 / self.n_actions))
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha = self.log_alpha.exp()

        self.q_value1_opt = Adam(self.q_value_network1.parameters(), lr=self.lr)
        self.q_value2_opt = Adam(self.q_value_network2.parameters(), lr=self.lr)
        self.policy_opt = Adam(self.policy_network.parameters(), lr=self.lr)
        self.alpha_opt = Adam([self.log_alpha], lr=self.lr)
        self.update_counter = 0

    def store(self, state, action, reward, next_state, done):
        self.memory.add(torch.from_numpy(state).float(), torch.tensor([reward], dtype=torch.float32),
                        torch.BoolTensor([done]), torch.LongTensor([action]),
                        torch.from_numpy(next_state).float())

    def unpack(self, batch):
        batch = Transition(*zip(*batch))
        states = torch.stack(batch.state)
        actions = torch.cat(batch.action).view((-1, 1))
        rewards = torch.cat(batch.reward).view((-1, 1))
        next_states = torch.stack(batch.next_state)
        dones = torch.cat(batch.done).view((-1, 1))
        return states, rewards, dones, actions, next_states

    def train(self):
        if len(self.memory) < self.batch_size:
            return 0, 0, 0
        batch = self.memory.sample(self.batch_size)
        states, rewards, dones, actions, next_states = self.unpack(batch)

        # Calculating the Q-Value target
        with torch.no_grad():
            _, next_probs = self.policy_network(next_states)
            next_log_probs = torch.log(next_probs)
            next_q1 = self.q_value_target_network1(next_states)
            next_q2 = self.q_value_target_network2(next_states)
            next_q = torch.min(next_q1, next_q2)
            next_v = (next_probs * (next_q - self.alpha * next_log_probs)).sum(-1).unsqueeze(-1)
            target_q = rewards + self.gamma * (~dones) * next_v

        q1 = self.q_value_network1(states).gather(1, actions)
        q2 = self.q_value_network2(states).gather(1, actions)
        q1_loss = F.mse_loss(q1, target_q)
        q2_loss = F.mse_loss(q2, target_q)

        # Calculating the Policy target
        _, probs = self.policy_network(states)
        log_probs = torch.log(probs)
        with torch.no_grad():
            q1 = self.q_value_network1(states)
            q2 = self.q_value_network2(states)
            q = torch.min(q1, q2)

        policy_loss = (probs * (self.alpha.detach() * log_probs - q)).sum(-1).mean()

        self.q_value1_opt.zero_grad()
        q1_loss.backward()
        self.q_value1_opt.step()

        self.q_value2_opt.zero_grad()
        q2_loss.backward()
        self.q_value2_opt.step()

        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()

        log_probs = (probs * log_probs).sum(-1)
        alpha_loss = -(self.log_alpha * (log_probs.detach() + self.entropy_target)).mean()

        self.alpha_opt.zero_grad()
        alpha_loss.backward()
        self.alpha_opt.step()

        self.update_counter += 1
        self.alpha = self.log_alpha.exp()
        if self.update_counter % self.config["fixed_network_update_freq"] == 0:
            self.hard_update_target_network()
        return alpha_loss.item(), 0.5 * (q1_loss + q2_loss).item(), policy_loss.item()

    def choose_action(self, states, do_greedy=False):
        states = torch.from_numpy(np.expand_dims(states, axis=0)).float()
        with torch.no_grad():
            dist, p = self.policy_network(states)
            action = p.argmax(-1) if do_greedy else dist.sample()
        return action.detach().cpu().numpy()[0]

    def hard_update_target_network(self):
        self.q_value_target_network1.load_state_dict(self.q_value_network1.state_dict())
        self.q_value_target_network1.eval()
        self.q_value_target_network2.load_state_dict(self.q_value_network2.state_dict())
        self.q_value_target_network2.eval()


def run(agent, steps, state_dim):
    state = np.random.randn(state_dim).astype(np.float32)
    losses = (0, 0, 0)
    for step in range(steps):
        action = agent.choose_action(state)
        next_state = np.random.randn(state_dim).astype(np.float32)
        reward = float(action == int(state[0] > 0))
        done = (step + 1) % 20 == 0
        agent.store(state, action, reward, next_state, done)
        losses = agent.train()
        state = next_state
    return losses


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    config = dict(state_shape=(4,), n_actions=3, lr=3e-4, gamma=0.99, batch_size=16,
                  mem_size=1000, fixed_network_update_freq=10)
    agent = SAC(**config)
    alpha_loss, q_loss, policy_loss = run(agent, steps=40, state_dim=4)
    print(f"alpha {agent.alpha.item():.4f} q_loss {q_loss:.4f} policy_loss {policy_loss:.4f}")


if __name__ == "__main__":
    main()
