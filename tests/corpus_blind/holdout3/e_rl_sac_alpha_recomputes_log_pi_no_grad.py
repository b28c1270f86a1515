# corpus: CleanRL-style SAC loop with autotune: after actor_loss.backward() it re-samples log_pi under torch.no_grad() for the alpha loss and refreshes alpha = log_alpha.exp().item() every update
# source: https://github.com/mani-skill/ManiSkill/issues/899
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

LOG_STD_MAX, LOG_STD_MIN = 2, -5


class SoftQNetwork(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim + act_dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x, a):
        return self.net(torch.cat([x, a], 1))


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU())
        self.fc_mean = nn.Linear(32, act_dim)
        self.fc_logstd = nn.Linear(32, act_dim)

    def get_action(self, x):
        h = self.backbone(x)
        mean = self.fc_mean(h)
        log_std = torch.tanh(self.fc_logstd(h))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (log_std + 1)
        normal = torch.distributions.Normal(mean, log_std.exp())
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        log_prob = (normal.log_prob(x_t) - torch.log(1 - y_t.pow(2) + 1e-6)).sum(1, keepdim=True)
        return y_t, log_prob, torch.tanh(mean)


def main(args):
    torch.manual_seed(args.seed)
    obs_dim, act_dim = 6, 2
    actor = Actor(obs_dim, act_dim)
    qf1, qf2 = SoftQNetwork(obs_dim, act_dim), SoftQNetwork(obs_dim, act_dim)
    qf1_target, qf2_target = SoftQNetwork(obs_dim, act_dim), SoftQNetwork(obs_dim, act_dim)
    qf1_target.load_state_dict(qf1.state_dict())
    qf2_target.load_state_dict(qf2.state_dict())
    q_optimizer = optim.Adam(list(qf1.parameters()) + list(qf2.parameters()), lr=args.q_lr)
    actor_optimizer = optim.Adam(actor.parameters(), lr=args.policy_lr)

    target_entropy = -float(act_dim)
    log_alpha = torch.zeros(1, requires_grad=True)
    alpha = log_alpha.exp().item()
    a_optimizer = optim.Adam([log_alpha], lr=args.q_lr)

    for global_step in range(args.total_steps):
        obs, act = torch.randn(16, obs_dim), torch.rand(16, act_dim) * 2 - 1
        rew, next_obs, done = torch.randn(16), torch.randn(16, obs_dim), torch.zeros(16)
        with torch.no_grad():
            next_actions, next_log_pi, _ = actor.get_action(next_obs)
            min_qf_next = torch.min(qf1_target(next_obs, next_actions), qf2_target(next_obs, next_actions))
            min_qf_next = min_qf_next - alpha * next_log_pi
            next_q_value = rew + (1 - done) * args.gamma * min_qf_next.view(-1)
        qf_loss = F.mse_loss(qf1(obs, act).view(-1), next_q_value) + F.mse_loss(qf2(obs, act).view(-1), next_q_value)
        q_optimizer.zero_grad()
        qf_loss.backward()
        q_optimizer.step()

        if global_step % args.policy_frequency == 0:
            for _ in range(args.policy_frequency):
                pi, log_pi, _ = actor.get_action(obs)
                min_qf_pi = torch.min(qf1(obs, pi), qf2(obs, pi))
                actor_loss = ((alpha * log_pi) - min_qf_pi).mean()
                actor_optimizer.zero_grad()
                actor_loss.backward()
                actor_optimizer.step()

                if args.autotune:
                    with torch.no_grad():
                        _, log_pi, _ = actor.get_action(obs)
                    alpha_loss = (-log_alpha.exp() * (log_pi + target_entropy)).mean()
                    a_optimizer.zero_grad()
                    alpha_loss.backward()
                    a_optimizer.step()
                    alpha = log_alpha.exp().item()

        for param, target_param in zip(qf1.parameters(), qf1_target.parameters()):
            target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)
        for param, target_param in zip(qf2.parameters(), qf2_target.parameters()):
            target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)
    print("alpha", alpha, "qf_loss", qf_loss.item(), "actor_loss", actor_loss.item())


if __name__ == "__main__":
    main(SimpleNamespace(seed=0, total_steps=6, q_lr=1e-3, policy_lr=3e-4, gamma=0.99, tau=0.005,
                         policy_frequency=2, autotune=True))
