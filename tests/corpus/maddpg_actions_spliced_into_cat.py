# corpus: MADDPG actor update collects every agent's action in a list (its own with its graph) and splices it into torch.cat((*obs, *actions)) for the critic (no leak: consumed by the backward); after boyu-ai Hands-on-RL chapter 21
import torch
import torch.nn.functional as F

torch.manual_seed(0)


def gumbel_softmax(logits, temperature=1.0):
    y = F.softmax(logits / temperature, dim=1)
    hard = (y == y.max(1, keepdim=True)[0]).float()
    return (hard - y).detach() + y


class Agent:
    def __init__(self, obs_dim, act_dim, critic_dim):
        self.actor = torch.nn.Linear(obs_dim, act_dim)
        self.critic = torch.nn.Linear(critic_dim, 1)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-2)


class MADDPG:
    def __init__(self, n_agents, obs_dim, act_dim):
        self.agents = [Agent(obs_dim, act_dim, n_agents * (obs_dim + act_dim)) for _ in range(n_agents)]

    @property
    def policies(self):
        return [agt.actor for agt in self.agents]

    def update(self, obs, i_agent):
        cur_agent = self.agents[i_agent]
        cur_agent.actor_optimizer.zero_grad()
        cur_act = gumbel_softmax(cur_agent.actor(obs[i_agent]))
        all_actor_acs = []
        for i, (pi, _obs) in enumerate(zip(self.policies, obs)):
            if i == i_agent:
                all_actor_acs.append(cur_act)
            else:
                all_actor_acs.append(F.one_hot(pi(_obs).argmax(1), 2).float())
        vf_in = torch.cat((*obs, *all_actor_acs), dim=1)
        actor_loss = -cur_agent.critic(vf_in).mean()
        actor_loss.backward()
        cur_agent.actor_optimizer.step()


maddpg = MADDPG(3, 4, 2)
for step in range(2):
    obs = [torch.randn(5, 4) for _ in range(3)]
    for i in range(3):
        maddpg.update(obs, i)
