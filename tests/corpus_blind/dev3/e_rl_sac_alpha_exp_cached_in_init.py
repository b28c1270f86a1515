# corpus: SAC agent with automatic entropy tuning computes self.alpha = self.log_alpha.exp() once in __init__ and uses it in the alpha loss of every update; the second update backpropagates through the already-freed exp node
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/rail-berkeley/softlearning/issues/177
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Normal


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mean = nn.Linear(hidden, act_dim)
        self.log_std = nn.Linear(hidden, act_dim)

    def sample(self, obs):
        x = self.body(obs)
        mean, log_std = self.mean(x), self.log_std(x).clamp(-20, 2)
        dist = Normal(mean, log_std.exp())
        u = dist.rsample()
        action = torch.tanh(u)
        log_prob = (dist.log_prob(u) - torch.log(1 - action.pow(2) + 1e-6)).sum(-1, keepdim=True)
        return action, log_prob


class QNetwork(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim + act_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1))


class SACAgent:
    def __init__(self, obs_dim, act_dim, gamma=0.99):
        self.gamma = gamma
        self.policy = GaussianPolicy(obs_dim, act_dim)
        self.q1, self.q2 = QNetwork(obs_dim, act_dim), QNetwork(obs_dim, act_dim)
        self.q1_target, self.q2_target = QNetwork(obs_dim, act_dim), QNetwork(obs_dim, act_dim)
        self.q1_target.load_state_dict(self.q1.state_dict())
        self.q2_target.load_state_dict(self.q2.state_dict())
        self.policy_optimizer = optim.Adam(self.policy.parameters(), lr=3e-4)
        self.q_optimizer = optim.Adam(list(self.q1.parameters()) + list(self.q2.parameters()), lr=3e-4)

        self.expected_entropy = -float(act_dim)
        self.log_alpha = torch.tensor(0.0, requires_grad=True)
        self.alpha = self.log_alpha.exp()  # expect: GG103
        self.alpha_optimizer = optim.Adam([self.log_alpha], lr=0.003)

    def update(self, batch):
        obs, act, rew, next_obs, done = batch
        with torch.no_grad():
            next_act, next_log_prob = self.policy.sample(next_obs)
            next_q = torch.min(self.q1_target(next_obs, next_act), self.q2_target(next_obs, next_act))
            target_q = rew + self.gamma * (1 - done) * (next_q - self.alpha * next_log_prob)
        q_loss = F.mse_loss(self.q1(obs, act), target_q) + F.mse_loss(self.q2(obs, act), target_q)
        self.q_optimizer.zero_grad()
        q_loss.backward()
        self.q_optimizer.step()

        new_act, log_prob = self.policy.sample(obs)
        q_new = torch.min(self.q1(obs, new_act), self.q2(obs, new_act))
        policy_loss = (self.alpha.detach() * log_prob - q_new).mean()
        self.policy_optimizer.zero_grad()
        policy_loss.backward()
        self.policy_optimizer.step()

        # formula 18 of the SAC paper: J(alpha) = E[-alpha * (log pi + H_target)]
        alpha_loss = (-self.alpha * (log_prob + self.expected_entropy).detach()).mean()
        self.alpha_optimizer.zero_grad()
        alpha_loss.backward()  # also: GG103
        self.alpha_optimizer.step()
        return {"q_loss": q_loss.item(), "policy_loss": policy_loss.item(), "alpha_loss": alpha_loss.item()}


def sample_replay(batch_size=16, obs_dim=5, act_dim=2):
    return (torch.randn(batch_size, obs_dim), torch.rand(batch_size, act_dim) * 2 - 1,
            torch.randn(batch_size, 1), torch.randn(batch_size, obs_dim), torch.zeros(batch_size, 1))


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = SACAgent(obs_dim=5, act_dim=2)
    for step in range(3):
        print(step, agent.update(sample_replay()))
