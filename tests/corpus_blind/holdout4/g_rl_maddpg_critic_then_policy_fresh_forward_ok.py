# corpus: MADDPG update per agent; the centralised critic is updated and stepped first, the policy loss is then built from a fresh forward through the stepped critic, and the critic's stray policy-loss gradients are cleared by its zero_grad at the next update (correct)
# source: https://github.com/shariqiqbal2810/maddpg-pytorch/issues/43
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam


class MLPNetwork(nn.Module):
    def __init__(self, input_dim, out_dim, hidden_dim=32, constrain_out=False):
        super().__init__()
        self.fc1 = nn.Linear(input_dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, hidden_dim)
        self.fc3 = nn.Linear(hidden_dim, out_dim)
        self.out_fn = torch.tanh if constrain_out else (lambda x: x)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = F.relu(self.fc2(h))
        return self.out_fn(self.fc3(h))


class DDPGAgent:
    def __init__(self, num_in_pol, num_out_pol, num_in_critic, lr=1e-2):
        self.policy = MLPNetwork(num_in_pol, num_out_pol, constrain_out=True)
        self.critic = MLPNetwork(num_in_critic, 1)
        self.target_policy = MLPNetwork(num_in_pol, num_out_pol, constrain_out=True)
        self.target_critic = MLPNetwork(num_in_critic, 1)
        self.target_policy.load_state_dict(self.policy.state_dict())
        self.target_critic.load_state_dict(self.critic.state_dict())
        self.policy_optimizer = Adam(self.policy.parameters(), lr=lr)
        self.critic_optimizer = Adam(self.critic.parameters(), lr=lr)


class MADDPG:
    def __init__(self, obs_dims, act_dims, gamma=0.95, tau=0.01):
        critic_in = sum(obs_dims) + sum(act_dims)
        self.agents = [DDPGAgent(o, a, critic_in) for o, a in zip(obs_dims, act_dims)]
        self.gamma = gamma
        self.tau = tau
        self.niter = 0

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
        vf_loss = F.mse_loss(actual_value, target_value.detach())
        vf_loss.backward()
        torch.nn.utils.clip_grad_norm_(curr_agent.critic.parameters(), 0.5)
        curr_agent.critic_optimizer.step()

        curr_agent.policy_optimizer.zero_grad()
        curr_pol_out = curr_agent.policy(obs[agent_i])
        all_pol_acs = []
        for i, ob in enumerate(obs):
            if i == agent_i:
                all_pol_acs.append(curr_pol_out)
            else:
                all_pol_acs.append(self.agents[i].policy(ob).detach())
        vf_in = torch.cat((*obs, *all_pol_acs), dim=1)
        pol_loss = -curr_agent.critic(vf_in).mean()
        pol_loss = pol_loss + (curr_pol_out ** 2).mean() * 1e-3
        pol_loss.backward()
        torch.nn.utils.clip_grad_norm_(curr_agent.policy.parameters(), 0.5)
        curr_agent.policy_optimizer.step()
        return {"vf_loss": vf_loss.item(), "pol_loss": pol_loss.item()}

    def update_all_targets(self):
        with torch.no_grad():
            for a in self.agents:
                for net, tgt in ((a.critic, a.target_critic), (a.policy, a.target_policy)):
                    for p, tp in zip(net.parameters(), tgt.parameters()):
                        tp.mul_(1.0 - self.tau).add_(self.tau * p)
        self.niter += 1


def sample_batch(obs_dims, act_dims, batch_size=16):
    n = len(obs_dims)
    obs = [torch.randn(batch_size, d) for d in obs_dims]
    acs = [torch.rand(batch_size, d) * 2 - 1 for d in act_dims]
    rews = [torch.randn(batch_size) for _ in range(n)]
    next_obs = [torch.randn(batch_size, d) for d in obs_dims]
    dones = [torch.zeros(batch_size) for _ in range(n)]
    return obs, acs, rews, next_obs, dones


def main():
    torch.manual_seed(0)
    obs_dims, act_dims = [6, 6, 4], [2, 2, 2]
    maddpg = MADDPG(obs_dims, act_dims)
    for it in range(2):
        sample = sample_batch(obs_dims, act_dims)
        logs = [maddpg.update(sample, a_i) for a_i in range(len(obs_dims))]
        maddpg.update_all_targets()
        print(it, logs[0])


if __name__ == "__main__":
    main()
