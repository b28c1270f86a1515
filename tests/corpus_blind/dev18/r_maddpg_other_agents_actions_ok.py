# corpus: maddpg-pytorch update() feeds the other agents' current policy outputs into agent i's critic without detaching them; each agent zeroes its own optimizer before its backward, so the stray gradients never reach a step and training is fine.
# source: https://github.com/shariqiqbal2810/maddpg-pytorch/issues/11
import numpy as np
import torch
import torch.nn as nn
from torch.optim import Adam

MSELoss = nn.MSELoss()


class MLPNetwork(nn.Module):
    def __init__(self, input_dim, out_dim, hidden_dim=32, constrain_out=False):
        super().__init__()
        self.fc1 = nn.Linear(input_dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, hidden_dim)
        self.fc3 = nn.Linear(hidden_dim, out_dim)
        self.out_fn = torch.tanh if constrain_out else (lambda x: x)

    def forward(self, X):
        h1 = nn.functional.relu(self.fc1(X))
        h2 = nn.functional.relu(self.fc2(h1))
        return self.out_fn(self.fc3(h2))


class DDPGAgent:
    def __init__(self, num_in_pol, num_out_pol, num_in_critic, lr=0.01):
        self.policy = MLPNetwork(num_in_pol, num_out_pol, constrain_out=True)
        self.critic = MLPNetwork(num_in_critic, 1)
        self.target_policy = MLPNetwork(num_in_pol, num_out_pol, constrain_out=True)
        self.target_critic = MLPNetwork(num_in_critic, 1)
        self.target_policy.load_state_dict(self.policy.state_dict())
        self.target_critic.load_state_dict(self.critic.state_dict())
        self.policy_optimizer = Adam(self.policy.parameters(), lr=lr)
        self.critic_optimizer = Adam(self.critic.parameters(), lr=lr)


def soft_update(target, source, tau):
    for target_param, param in zip(target.parameters(), source.parameters()):
        target_param.data.copy_(target_param.data * (1.0 - tau) + param.data * tau)


class MADDPG:
    def __init__(self, agent_init_params, gamma=0.95, tau=0.01):
        self.nagents = len(agent_init_params)
        self.agents = [DDPGAgent(**params) for params in agent_init_params]
        self.gamma, self.tau = gamma, tau

    @property
    def policies(self):
        return [a.policy for a in self.agents]

    @property
    def target_policies(self):
        return [a.target_policy for a in self.agents]

    def update(self, sample, agent_i):
        obs, acs, rews, next_obs, dones = sample
        curr_agent = self.agents[agent_i]

        curr_agent.critic_optimizer.zero_grad()
        all_trgt_acs = [pi(nobs) for pi, nobs in zip(self.target_policies, next_obs)]
        trgt_vf_in = torch.cat((*next_obs, *all_trgt_acs), dim=1)
        target_value = (rews[agent_i].view(-1, 1) + self.gamma *
                        curr_agent.target_critic(trgt_vf_in) * (1 - dones[agent_i].view(-1, 1)))
        vf_in = torch.cat((*obs, *acs), dim=1)
        actual_value = curr_agent.critic(vf_in)
        vf_loss = MSELoss(actual_value, target_value.detach())
        vf_loss.backward()
        torch.nn.utils.clip_grad_norm_(curr_agent.critic.parameters(), 0.5)
        curr_agent.critic_optimizer.step()

        curr_agent.policy_optimizer.zero_grad()
        curr_pol_out = curr_agent.policy(obs[agent_i])
        curr_pol_vf_in = curr_pol_out
        all_pol_acs = []
        for i, pi, ob in zip(range(self.nagents), self.policies, obs):
            if i == agent_i:
                all_pol_acs.append(curr_pol_vf_in)
            else:
                all_pol_acs.append(pi(ob))
        vf_in = torch.cat((*obs, *all_pol_acs), dim=1)
        pol_loss = -curr_agent.critic(vf_in).mean()
        pol_loss += (curr_pol_out ** 2).mean() * 1e-3
        pol_loss.backward()
        torch.nn.utils.clip_grad_norm_(curr_agent.policy.parameters(), 0.5)
        curr_agent.policy_optimizer.step()
        return vf_loss.item(), pol_loss.item()

    def update_all_targets(self):
        for a in self.agents:
            soft_update(a.target_critic, a.critic, self.tau)
            soft_update(a.target_policy, a.policy, self.tau)


class ReplayBuffer:
    def __init__(self, num_agents, obs_dims, ac_dims, max_steps=1000):
        self.num_agents = num_agents
        self.data = []

    def push(self, observations, actions, rewards, next_observations, dones):
        self.data.append((observations, actions, rewards, next_observations, dones))

    def sample(self, N):
        idx = np.random.choice(len(self.data), N, replace=False)
        cast = lambda x: torch.tensor(np.array(x), dtype=torch.float32)
        obs = [cast([self.data[j][0][a] for j in idx]) for a in range(self.num_agents)]
        acs = [cast([self.data[j][1][a] for j in idx]) for a in range(self.num_agents)]
        rews = [cast([self.data[j][2][a] for j in idx]) for a in range(self.num_agents)]
        next_obs = [cast([self.data[j][3][a] for j in idx]) for a in range(self.num_agents)]
        dones = [cast([self.data[j][4][a] for j in idx]) for a in range(self.num_agents)]
        return obs, acs, rews, next_obs, dones

    def __len__(self):
        return len(self.data)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    nagents, obs_dim, ac_dim = 3, 4, 2
    init = [dict(num_in_pol=obs_dim, num_out_pol=ac_dim, num_in_critic=nagents * (obs_dim + ac_dim))
            for _ in range(nagents)]
    maddpg = MADDPG(init)
    replay_buffer = ReplayBuffer(nagents, [obs_dim] * nagents, [ac_dim] * nagents)
    obs = [np.random.randn(obs_dim) for _ in range(nagents)]
    for t in range(40):
        with torch.no_grad():
            actions = [pi(torch.tensor(o, dtype=torch.float32)).numpy() for pi, o in zip(maddpg.policies, obs)]
        next_obs = [np.random.randn(obs_dim) for _ in range(nagents)]
        rewards = [-float(np.sum(a ** 2)) for a in actions]
        replay_buffer.push(obs, actions, rewards, next_obs, [0.0] * nagents)
        obs = next_obs
        if len(replay_buffer) >= 16 and t % 4 == 0:
            for a_i in range(nagents):
                sample = replay_buffer.sample(8)
                vf_loss, pol_loss = maddpg.update(sample, a_i)
                print(f"t {t} agent {a_i} vf_loss {vf_loss:.3f} pol_loss {pol_loss:.3f}")
            maddpg.update_all_targets()


if __name__ == "__main__":
    main()
