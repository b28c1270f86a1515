# corpus: MADDPG learn() (multi-agent DDPG shape): every agent's target-actor and actor actions are computed once before the per-agent update loop and reused by each agent's critic and actor losses; retain_graph=True keeps those graphs alive, but the first agent's soft target update rewrites target-actor weights in place, so the next agent's critic backward fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/philtabor/Multi-Agent-Deep-Deterministic-Policy-Gradients/issues/2
import numpy as np
import torch
import torch as T
import torch.nn as nn
import torch.nn.functional as F


class CriticNetwork(nn.Module):
    def __init__(self, input_dims, n_agents, n_actions, lr=1e-3):
        super().__init__()
        self.fc1 = nn.Linear(input_dims + n_agents * n_actions, 32)
        self.q = nn.Linear(32, 1)
        self.optimizer = T.optim.Adam(self.parameters(), lr=lr)

    def forward(self, state, action):
        return self.q(F.relu(self.fc1(T.cat([state, action], dim=1))))


class ActorNetwork(nn.Module):
    def __init__(self, input_dims, n_actions, lr=1e-3):
        super().__init__()
        self.fc1 = nn.Linear(input_dims, 32)
        self.pi = nn.Linear(32, n_actions)
        self.optimizer = T.optim.Adam(self.parameters(), lr=lr)

    def forward(self, state):
        return T.softmax(self.pi(F.relu(self.fc1(state))), dim=1)


class Agent:
    def __init__(self, actor_dims, critic_dims, n_actions, n_agents, gamma=0.95, tau=0.01):
        self.gamma, self.tau = gamma, tau
        self.actor = ActorNetwork(actor_dims, n_actions)
        self.critic = CriticNetwork(critic_dims, n_agents, n_actions)
        self.target_actor = ActorNetwork(actor_dims, n_actions)
        self.target_critic = CriticNetwork(critic_dims, n_agents, n_actions)
        self.update_network_parameters(tau=1)

    def update_network_parameters(self, tau=None):
        tau = self.tau if tau is None else tau
        for net, target in ((self.actor, self.target_actor), (self.critic, self.target_critic)):
            params = dict(net.named_parameters())
            target_params = dict(target.named_parameters())
            mixed = {k: tau * params[k].clone() + (1 - tau) * target_params[k].clone() for k in params}
            target.load_state_dict(mixed)


class MADDPG:
    def __init__(self, actor_dims, critic_dims, n_agents, n_actions):
        self.agents = [Agent(actor_dims[i], critic_dims, n_actions, n_agents) for i in range(n_agents)]

    def learn(self, batch):
        actor_states, states, actions, rewards, actor_new_states, states_, dones = batch
        all_agents_new_actions, all_agents_new_mu_actions = [], []
        for agent_idx, agent in enumerate(self.agents):
            all_agents_new_actions.append(agent.target_actor(actor_new_states[agent_idx]))
            all_agents_new_mu_actions.append(agent.actor(actor_states[agent_idx]))
        new_actions = T.cat(all_agents_new_actions, dim=1)  # also: GG302
        mu = T.cat(all_agents_new_mu_actions, dim=1)  # also: GG302
        old_actions = T.cat(actions, dim=1)

        for agent_idx, agent in enumerate(self.agents):
            critic_value_ = agent.target_critic(states_, new_actions).flatten()
            critic_value_[dones[:, 0]] = 0.0
            critic_value = agent.critic(states, old_actions).flatten()
            target = rewards[:, agent_idx] + agent.gamma * critic_value_
            critic_loss = F.mse_loss(target, critic_value)
            agent.critic.optimizer.zero_grad()
            critic_loss.backward(retain_graph=True)  # expect: GG302
            agent.critic.optimizer.step()

            actor_loss = -T.mean(agent.critic(states, mu).flatten())
            agent.actor.optimizer.zero_grad()
            actor_loss.backward(retain_graph=True)  # also: GG302
            agent.actor.optimizer.step()
            agent.update_network_parameters()


def sample_batch(n_agents, actor_dim, n_actions, batch=16):
    actor_states = [T.randn(batch, actor_dim) for _ in range(n_agents)]
    actor_new_states = [T.randn(batch, actor_dim) for _ in range(n_agents)]
    actions = [F.one_hot(T.randint(0, n_actions, (batch,)), n_actions).float() for _ in range(n_agents)]
    states, states_ = T.cat(actor_states, 1), T.cat(actor_new_states, 1)
    rewards = T.randn(batch, n_agents)
    dones = T.from_numpy(np.random.rand(batch, n_agents) < 0.1)
    return actor_states, states, actions, rewards, actor_new_states, states_, dones


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    n_agents, actor_dim, n_actions = 2, 6, 3
    maddpg = MADDPG([actor_dim] * n_agents, actor_dim * n_agents, n_agents, n_actions)
    for episode in range(2):
        maddpg.learn(sample_batch(n_agents, actor_dim, n_actions))
        print("episode", episode)


if __name__ == "__main__":
    main()
