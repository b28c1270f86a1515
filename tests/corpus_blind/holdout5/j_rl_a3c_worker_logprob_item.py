# corpus: A3C worker stores each step's log-probability as a Python float (log_prob.item()) in its memory and rebuilds them with torch.tensor() for the actor loss; the actor loss has no graph, so its backward fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/Quantum-Cheese/DeepReinforcementLearning_Pytorch/issues/1
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Actor(nn.Module):
    def __init__(self, state_size, action_size, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(state_size, hidden)
        self.fc2 = nn.Linear(hidden, action_size)

    def forward(self, x):
        return F.softmax(self.fc2(F.relu(self.fc1(x))), dim=-1)


class Critic(nn.Module):
    def __init__(self, state_size, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(state_size, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def push_grads(local_model, global_model):
    for lp, gp in zip(local_model.parameters(), global_model.parameters()):
        gp._grad = lp.grad


class Worker:
    def __init__(self, name, global_actor, global_critic, actor_optimizer, critic_optimizer, args):
        self.name = name
        self.gamma = args.gamma
        self.global_actor, self.global_critic = global_actor, global_critic
        self.actor_optimizer, self.critic_optimizer = actor_optimizer, critic_optimizer
        self.local_actor = Actor(args.state_size, args.action_size)
        self.local_critic = Critic(args.state_size)
        self.memory = []
        self.pull()

    def pull(self):
        self.local_actor.load_state_dict(self.global_actor.state_dict())
        self.local_critic.load_state_dict(self.global_critic.state_dict())

    def act(self, state):
        probs = self.local_actor(state)
        m = Categorical(probs)
        action = m.sample()
        return action.item(), m.log_prob(action).item()

    def discounted_returns(self, rewards, last_value):
        returns, ret = [], last_value
        for r in reversed(rewards):
            ret = r + self.gamma * ret
            returns.insert(0, ret)
        return torch.tensor(returns, dtype=torch.float)

    def learn(self, last_state):
        states = torch.stack([t[0] for t in self.memory])
        log_probs = torch.tensor([t[1] for t in self.memory], dtype=torch.float)
        rewards = [t[2] for t in self.memory]
        with torch.no_grad():
            last_value = self.local_critic(last_state).item()
        returns = self.discounted_returns(rewards, last_value)

        values = self.local_critic(states).squeeze(-1)
        advantages = (returns - values).detach()
        critic_loss = F.mse_loss(values, returns)
        actor_loss = -(log_probs * advantages).mean()

        self.critic_optimizer.zero_grad()
        self.local_critic.zero_grad()
        critic_loss.backward()
        push_grads(self.local_critic, self.global_critic)
        self.critic_optimizer.step()

        self.actor_optimizer.zero_grad()
        self.local_actor.zero_grad()
        actor_loss.backward()  # expect: GG106
        push_grads(self.local_actor, self.global_actor)
        self.actor_optimizer.step()

        self.memory = []
        self.pull()
        return actor_loss.item(), critic_loss.item()

    def work(self, n_steps):
        state = torch.randn(4)
        for _ in range(n_steps):
            action, log_prob = self.act(state)
            next_state = torch.randn(4)
            reward = 1.0 if action == 0 else -0.1
            self.memory.append((state, log_prob, reward))
            state = next_state
        return self.learn(state)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state-size", type=int, default=4)
    parser.add_argument("--action-size", type=int, default=2)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--n-workers", type=int, default=2)
    parser.add_argument("--t-max", type=int, default=5)
    args = parser.parse_args([])

    torch.manual_seed(0)
    global_actor = Actor(args.state_size, args.action_size)
    global_critic = Critic(args.state_size)
    actor_optimizer = torch.optim.Adam(global_actor.parameters(), lr=1e-3)
    critic_optimizer = torch.optim.Adam(global_critic.parameters(), lr=1e-3)
    workers = [Worker(f"w{i}", global_actor, global_critic, actor_optimizer, critic_optimizer, args)
               for i in range(args.n_workers)]
    for round_ in range(2):
        for worker in workers:  # sequential stand-in for the mp.Process workers
            print(worker.name, round_, worker.work(args.t_max))


if __name__ == "__main__":
    main()
