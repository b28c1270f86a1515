# corpus: REDQ-SAC agent (ensemble of Q nets, high update-to-data ratio): train() builds the Q loss and the policy loss (which runs the new actions through every Q net) first, then steps all Q optimizers and only afterwards backpropagates the policy loss, whose graph saved the Q weights the steps just changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/watchernyu/REDQ/pull/2
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def mlp(in_dim, out_dim, hidden=32):
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, out_dim))


class TanhGaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.body = mlp(obs_dim, 2 * act_dim)

    def forward(self, obs):
        mean, log_std = self.body(obs).chunk(2, dim=-1)
        std = log_std.clamp(-5, 2).exp()
        normal = torch.distributions.Normal(mean, std)
        pre_tanh = normal.rsample()
        action = torch.tanh(pre_tanh)
        log_prob = (normal.log_prob(pre_tanh) - torch.log(1 - action.pow(2) + 1e-6)).sum(-1, keepdim=True)
        return action, log_prob


class REDQSACAgent:
    def __init__(self, obs_dim, act_dim, num_Q=4, num_min=2, lr=3e-4, gamma=0.99, polyak=0.995,
                 utd_ratio=3, policy_update_delay=1):
        self.policy_net = TanhGaussianPolicy(obs_dim, act_dim)
        self.q_net_list = [mlp(obs_dim + act_dim, 1) for _ in range(num_Q)]
        self.q_target_net_list = [mlp(obs_dim + act_dim, 1) for _ in range(num_Q)]
        for q, qt in zip(self.q_net_list, self.q_target_net_list):
            qt.load_state_dict(q.state_dict())
        self.policy_optimizer = optim.Adam(self.policy_net.parameters(), lr=lr)
        self.q_optimizer_list = [optim.Adam(q.parameters(), lr=lr) for q in self.q_net_list]
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha_optim = optim.Adam([self.log_alpha], lr=lr)
        self.alpha = self.log_alpha.exp().item()
        self.target_entropy = -act_dim
        self.num_Q, self.num_min, self.gamma, self.polyak = num_Q, num_min, gamma, polyak
        self.utd_ratio, self.policy_update_delay = utd_ratio, policy_update_delay
        self.mse_criterion = nn.MSELoss()

    def get_redq_q_target_no_grad(self, obs_next, rews, done):
        sample_idxs = np.random.choice(self.num_Q, self.num_min, replace=False)
        with torch.no_grad():
            a_next, log_prob_next = self.policy_net(obs_next)
            q_next = torch.cat([self.q_target_net_list[i](torch.cat([obs_next, a_next], 1)) for i in sample_idxs], 1)
            min_q, _ = torch.min(q_next, dim=1, keepdim=True)
            y_q = rews + self.gamma * (1 - done) * (min_q - self.alpha * log_prob_next)
        return y_q

    def train(self, batch_fn):
        for i_update in range(self.utd_ratio):
            obs, acts, rews, obs_next, done = batch_fn()
            y_q = self.get_redq_q_target_no_grad(obs_next, rews, done)
            q_prediction_cat = torch.cat([q(torch.cat([obs, acts], 1)) for q in self.q_net_list], dim=1)
            q_loss_all = self.mse_criterion(q_prediction_cat, y_q.expand(-1, self.num_Q)) * self.num_Q

            if (i_update + 1) % self.policy_update_delay == 0:
                a_tilda, log_prob_a_tilda = self.policy_net(obs)
                q_a_tilda_cat = torch.cat([q(torch.cat([obs, a_tilda], 1)) for q in self.q_net_list], 1)
                ave_q = torch.mean(q_a_tilda_cat, dim=1, keepdim=True)
                policy_loss = (self.alpha * log_prob_a_tilda - ave_q).mean()  # also: GG111
                alpha_loss = -(self.log_alpha * (log_prob_a_tilda + self.target_entropy).detach()).mean()
                self.alpha_optim.zero_grad()
                alpha_loss.backward()
                self.alpha_optim.step()
                self.alpha = self.log_alpha.exp().item()

            for q_i in range(self.num_Q):
                self.q_optimizer_list[q_i].zero_grad()
            q_loss_all.backward()
            for q_i in range(self.num_Q):
                self.q_optimizer_list[q_i].step()  # expect: GG111

            if (i_update + 1) % self.policy_update_delay == 0:
                self.policy_optimizer.zero_grad()
                policy_loss.backward()  # also: GG111
                self.policy_optimizer.step()

            with torch.no_grad():
                for q, qt in zip(self.q_net_list, self.q_target_net_list):
                    for p, pt in zip(q.parameters(), qt.parameters()):
                        pt.mul_(self.polyak).add_((1 - self.polyak) * p)


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    obs_dim, act_dim, batch = 5, 2, 16
    agent = REDQSACAgent(obs_dim, act_dim)

    def batch_fn():
        obs = torch.randn(batch, obs_dim)
        return obs, torch.rand(batch, act_dim) * 2 - 1, torch.randn(batch, 1), obs + 0.1, torch.zeros(batch, 1)

    for it in range(2):
        agent.train(batch_fn)
        print("update round", it, "alpha", agent.alpha)


if __name__ == "__main__":
    main()
