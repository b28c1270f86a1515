# corpus: MADDPG agent reordered to update the critic first, but actor_loss was already built through the critic, so critic_optim.step() invalidates it before actor_loss.backward()
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/starry-sky6688/MADDPG/issues/27
import copy
from types import SimpleNamespace
import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, args, agent_id):
        super().__init__()
        self.max_action = args.high_action
        self.fc1 = nn.Linear(args.obs_shape[agent_id], 16)
        self.fc2 = nn.Linear(16, 16)
        self.action_out = nn.Linear(16, args.action_shape[agent_id])

    def forward(self, x):
        x = F.relu(self.fc2(F.relu(self.fc1(x))))
        return self.max_action * torch.tanh(self.action_out(x))


class Critic(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.max_action = args.high_action
        self.fc1 = nn.Linear(sum(args.obs_shape) + sum(args.action_shape), 16)
        self.fc2 = nn.Linear(16, 16)
        self.q_out = nn.Linear(16, 1)

    def forward(self, state, action):
        state = torch.cat(state, dim=1)
        action = torch.cat([a / self.max_action for a in action], dim=1)
        x = F.relu(self.fc1(torch.cat([state, action], dim=1)))
        return self.q_out(F.relu(self.fc2(x)))


class MADDPG:
    def __init__(self, args, agent_id):
        self.args, self.agent_id = args, agent_id
        self.actor_network = Actor(args, agent_id)
        self.critic_network = Critic(args)
        self.actor_target_network = copy.deepcopy(self.actor_network)
        self.critic_target_network = copy.deepcopy(self.critic_network)
        self.actor_optim = torch.optim.Adam(self.actor_network.parameters(), lr=args.lr_actor)
        self.critic_optim = torch.optim.Adam(self.critic_network.parameters(), lr=args.lr_critic)

    def _soft_update_target_network(self):
        tau = self.args.tau
        for target, source in ((self.actor_target_network, self.actor_network),
                               (self.critic_target_network, self.critic_network)):
            for target_param, param in zip(target.parameters(), source.parameters()):
                target_param.data.copy_((1 - tau) * target_param.data + tau * param.data)

    def train(self, transitions, other_agents):
        r = transitions["r_%d" % self.agent_id]
        o = [transitions["o_%d" % i] for i in range(self.args.n_agents)]
        u = [transitions["u_%d" % i] for i in range(self.args.n_agents)]
        o_next = [transitions["o_next_%d" % i] for i in range(self.args.n_agents)]

        u_next = []
        with torch.no_grad():
            index = 0
            for agent_id in range(self.args.n_agents):
                if agent_id == self.agent_id:
                    u_next.append(self.actor_target_network(o_next[agent_id]))
                else:
                    u_next.append(other_agents[index].policy.actor_target_network(o_next[agent_id]))
                    index += 1
            q_next = self.critic_target_network(o_next, u_next)
            target_q = r.unsqueeze(1) + self.args.gamma * q_next

        q_value = self.critic_network(o, u)
        critic_loss = (target_q - q_value).pow(2).mean()

        # re-select this agent's action, keep the other agents' actions from the buffer
        u[self.agent_id] = self.actor_network(o[self.agent_id])
        actor_loss = -self.critic_network(o, u).mean()  # expect: GG111

        # update the critic first, then the actor (order of the paper)
        self.critic_optim.zero_grad()
        critic_loss.backward()
        self.critic_optim.step()  # also: GG111

        self.actor_optim.zero_grad()
        actor_loss.backward()  # also: GG111
        self.actor_optim.step()

        self._soft_update_target_network()
        return {"critic_loss": critic_loss.item(), "actor_loss": actor_loss.item()}


class Agent:
    def __init__(self, agent_id, args):
        self.agent_id, self.policy = agent_id, MADDPG(args, agent_id)

    def learn(self, transitions, other_agents):
        return self.policy.train(transitions, other_agents)


def sample_transitions(args, batch_size=8):
    batch = {}
    for i in range(args.n_agents):
        batch["o_%d" % i] = torch.randn(batch_size, args.obs_shape[i])
        batch["u_%d" % i] = torch.rand(batch_size, args.action_shape[i]) * 2 - 1
        batch["r_%d" % i] = torch.randn(batch_size)
        batch["o_next_%d" % i] = torch.randn(batch_size, args.obs_shape[i])
    return batch


if __name__ == "__main__":
    torch.manual_seed(0)
    args = SimpleNamespace(n_agents=3, obs_shape=[6, 6, 6], action_shape=[2, 2, 2], high_action=1.0,
                           lr_actor=1e-3, lr_critic=1e-3, gamma=0.95, tau=0.01)
    agents = [Agent(i, args) for i in range(args.n_agents)]
    for step in range(2):
        transitions = sample_transitions(args)
        for agent in agents:
            print(step, agent.agent_id, agent.learn(transitions, [a for a in agents if a is not agent]))
