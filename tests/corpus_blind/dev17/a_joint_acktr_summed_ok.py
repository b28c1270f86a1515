# corpus: Joint actor-critic agent with one shared trunk adds the policy, entropy and value losses and backpropagates the sum once, reading action probabilities and values for acting through .data; correct despite two heads on one forward.
# source: https://github.com/ChenglongChen/pytorch-DRL/blob/f8f37b0ffec4e862c8b550bf434c1c522a64b029/ACKTR.py
import random
from collections import namedtuple

import numpy as np
import torch as th
from torch import nn
from torch.optim import RMSprop

Experience = namedtuple("Experience", ("states", "actions", "rewards"))


def entropy(p):
    return -th.sum(p * th.log(p), 1)


def index_to_one_hot(index, dim):
    if isinstance(index, (int, np.integer)):
        one_hot = np.zeros(dim)
        one_hot[index] = 1.
    else:
        one_hot = np.zeros((len(index), dim))
        one_hot[np.arange(len(index)), index] = 1.
    return one_hot


def to_tensor_var(x, dtype="float"):
    return th.as_tensor(np.asarray(x), dtype=th.float32 if dtype == "float" else th.long)


class ReplayMemory:
    def __init__(self, capacity):
        self.capacity, self.memory, self.position = capacity, [], 0

    def push(self, states, actions, rewards):
        for s, a, r in zip(states, actions, rewards):
            if len(self.memory) < self.capacity:
                self.memory.append(None)
            self.memory[self.position] = Experience(s, a, r)
            self.position = (self.position + 1) % self.capacity

    def sample(self, batch_size):
        return Experience(*zip(*random.sample(self.memory, batch_size)))

    def __len__(self):
        return len(self.memory)


class ActorCriticNetwork(nn.Module):
    """An actor-critic network that shares lower-layer representations but has distinct output layers."""

    def __init__(self, state_dim, action_dim, hidden_size, actor_output_act, critic_output_size=1):
        super().__init__()
        self.fc1 = nn.Linear(state_dim, hidden_size)
        self.fc2 = nn.Linear(hidden_size, hidden_size)
        self.actor_linear = nn.Linear(hidden_size, action_dim)
        self.critic_linear = nn.Linear(hidden_size, critic_output_size)
        self.actor_output_act = actor_output_act

    def forward(self, state):
        out = nn.functional.relu(self.fc1(state))
        out = nn.functional.relu(self.fc2(out))
        act = self.actor_output_act(self.actor_linear(out), dim=-1)
        val = self.critic_linear(out)
        return act, val


class ToyEnv:
    def __init__(self, state_dim, action_dim, seed=0):
        self.rng = np.random.default_rng(seed)
        self.state_dim, self.action_dim, self.t = state_dim, action_dim, 0

    def reset(self):
        self.t = 0
        return self.rng.standard_normal(self.state_dim).astype(np.float32)

    def step(self, action):
        self.t += 1
        reward = 1.0 if action == self.t % self.action_dim else 0.0
        return self.rng.standard_normal(self.state_dim).astype(np.float32), reward, self.t >= 15, {}


class JointA2C:
    def __init__(self, env, state_dim, action_dim, memory_capacity=1000, roll_out_n_steps=5,
                 reward_gamma=0.99, hidden_size=32, lr=1e-3, vf_coef=0.5, entropy_reg=0.01,
                 max_grad_norm=0.5, batch_size=16):
        self.env, self.env_state = env, env.reset()
        self.state_dim, self.action_dim = state_dim, action_dim
        self.memory = ReplayMemory(memory_capacity)
        self.roll_out_n_steps, self.reward_gamma = roll_out_n_steps, reward_gamma
        self.vf_coef, self.entropy_reg = vf_coef, entropy_reg
        self.max_grad_norm, self.batch_size = max_grad_norm, batch_size
        self.n_episodes = 0
        self.actor_critic = ActorCriticNetwork(state_dim, action_dim, hidden_size,
                                               nn.functional.log_softmax)
        self.optimizer = RMSprop(self.actor_critic.parameters(), lr=lr)

    def _discount_reward(self, rewards, final_value):
        discounted_r = np.zeros_like(rewards)
        running_add = final_value
        for t in reversed(range(0, len(rewards))):
            running_add = running_add * self.reward_gamma + rewards[t]
            discounted_r[t] = running_add
        return discounted_r

    def _softmax_action(self, state):
        state_var = to_tensor_var([state])
        softmax_action_var = th.exp(self.actor_critic(state_var)[0])
        return softmax_action_var.data.numpy()[0]

    def exploration_action(self, state):
        softmax_action = self._softmax_action(state)
        return np.random.choice(self.action_dim, p=softmax_action / softmax_action.sum())

    def value(self, state):
        value_var = self.actor_critic(to_tensor_var([state]))[1]
        return float(value_var.data.numpy()[0, 0])

    def interact(self):
        states, actions, rewards = [], [], []
        for i in range(self.roll_out_n_steps):
            states.append(self.env_state)
            action = self.exploration_action(self.env_state)
            next_state, reward, done, _ = self.env.step(action)
            actions.append(index_to_one_hot(action, self.action_dim))
            rewards.append(reward)
            final_state = next_state
            self.env_state = next_state
            if done:
                self.env_state = self.env.reset()
                break
        if done:
            final_value = 0.0
            self.n_episodes += 1
        else:
            final_value = self.value(final_state)
        rewards = self._discount_reward(np.asarray(rewards, dtype=np.float32), final_value)
        self.memory.push(states, actions, rewards)

    def train(self):
        batch = self.memory.sample(self.batch_size)
        states_var = to_tensor_var(batch.states).view(-1, self.state_dim)
        actions_var = to_tensor_var(batch.actions).view(-1, self.action_dim)
        rewards_var = to_tensor_var(batch.rewards).view(-1, 1)

        action_log_probs, values = self.actor_critic(states_var)
        entropy_loss = th.mean(entropy(th.exp(action_log_probs)))
        action_log_probs = th.sum(action_log_probs * actions_var, 1)

        # actor loss
        advantages = rewards_var - values.detach()
        pg_loss = -th.mean(action_log_probs * advantages)
        actor_loss = pg_loss - entropy_loss * self.entropy_reg
        # critic loss
        target_values = rewards_var
        critic_loss = nn.MSELoss()(values, target_values)

        self.optimizer.zero_grad()
        loss = actor_loss + critic_loss * self.vf_coef
        loss.backward()
        if self.max_grad_norm is not None:
            nn.utils.clip_grad_norm_(self.actor_critic.parameters(), self.max_grad_norm)
        self.optimizer.step()
        return loss.item()


def main():
    random.seed(0)
    np.random.seed(0)
    th.manual_seed(0)
    env = ToyEnv(state_dim=4, action_dim=2)
    agent = JointA2C(env, state_dim=4, action_dim=2)
    loss = None
    for it in range(30):
        agent.interact()
        if len(agent.memory) >= agent.batch_size:
            loss = agent.train()
    print(f"episodes {agent.n_episodes} last loss {loss:.4f}")


if __name__ == "__main__":
    main()
