# corpus: TQC/SAC trainer builds actor_loss through the critic, then steps the critic, then backpropagates actor_loss through critic weights the step changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/SamsungLabs/tqc_pytorch/issues/8
import copy

import torch
import torch.nn as nn


class Actor(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, hidden), nn.ReLU(), nn.Linear(hidden, 2 * action_dim))

    def forward(self, state):
        mean, log_std = self.net(state).chunk(2, dim=-1)
        std = log_std.clamp(-5, 2).exp()
        pre_tanh = mean + std * torch.randn_like(mean)
        action = torch.tanh(pre_tanh)
        log_prob = (-0.5 * ((pre_tanh - mean) / std) ** 2 - std.log()).sum(-1, keepdim=True)
        log_prob = log_prob - torch.log(1 - action.pow(2) + 1e-6).sum(-1, keepdim=True)
        return action, log_prob


class Critic(nn.Module):
    def __init__(self, state_dim, action_dim, n_quantiles=5, n_nets=2, hidden=16):
        super().__init__()
        self.n_quantiles, self.n_nets = n_quantiles, n_nets
        self.nets = nn.ModuleList(
            nn.Sequential(nn.Linear(state_dim + action_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_quantiles))
            for _ in range(n_nets))

    def forward(self, state, action):
        sa = torch.cat((state, action), dim=1)
        return torch.stack(tuple(net(sa) for net in self.nets), dim=1)


def quantile_huber_loss_f(quantiles, samples):
    pairwise_delta = samples[:, None, None, :] - quantiles[:, :, :, None]
    abs_delta = torch.abs(pairwise_delta)
    huber = torch.where(abs_delta > 1, abs_delta - 0.5, pairwise_delta ** 2 * 0.5)
    n = quantiles.shape[2]
    tau = (torch.arange(n).float() + 0.5) / n
    return (torch.abs(tau[None, None, :, None] - (pairwise_delta < 0).float()) * huber).mean()


class ReplayBuffer:
    def __init__(self, state_dim, action_dim, size=32):
        self.s, self.a = torch.randn(size, state_dim), torch.rand(size, action_dim) * 2 - 1
        self.s2, self.r = torch.randn(size, state_dim), torch.randn(size, 1)
        self.not_done = torch.ones(size, 1)

    def sample(self, batch_size):
        idx = torch.randint(0, len(self.s), (batch_size,))
        return self.s[idx], self.a[idx], self.s2[idx], self.r[idx], self.not_done[idx]


class Trainer:
    def __init__(self, actor, critic, discount=0.99, tau=0.005, top_quantiles_to_drop=2, target_entropy=-1.0):
        self.actor, self.critic = actor, critic
        self.critic_target = copy.deepcopy(critic)
        self.log_alpha = torch.zeros((1,), requires_grad=True)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=3e-4)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=3e-4)
        self.discount, self.tau, self.target_entropy = discount, tau, target_entropy
        self.top_quantiles_to_drop = top_quantiles_to_drop
        self.quantiles_total = critic.n_quantiles * critic.n_nets

    def train(self, replay_buffer, batch_size=8):
        state, action, next_state, reward, not_done = replay_buffer.sample(batch_size)
        alpha = torch.exp(self.log_alpha)
        with torch.no_grad():
            new_next_action, next_log_pi = self.actor(next_state)
            next_z = self.critic_target(next_state, new_next_action)
            sorted_z, _ = torch.sort(next_z.reshape(batch_size, -1))
            sorted_z_part = sorted_z[:, :self.quantiles_total - self.top_quantiles_to_drop]
            target = reward + not_done * self.discount * (sorted_z_part - alpha * next_log_pi)
        cur_z = self.critic(state, action)
        critic_loss = quantile_huber_loss_f(cur_z, target)

        new_action, log_pi = self.actor(state)
        alpha_loss = -self.log_alpha * (log_pi + self.target_entropy).detach().mean()
        actor_loss = (alpha * log_pi - self.critic(state, new_action).mean(2).mean(1, keepdim=True)).mean()  # expect: GG111

        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()  # also: GG111
        for param, target_param in zip(self.critic.parameters(), self.critic_target.parameters()):
            target_param.data.copy_(self.tau * param.data + (1 - self.tau) * target_param.data)

        self.actor_optimizer.zero_grad()
        actor_loss.backward()  # also: GG111
        self.actor_optimizer.step()
        self.alpha_optimizer.zero_grad()
        alpha_loss.backward()
        self.alpha_optimizer.step()
        return critic_loss.item(), actor_loss.item()


def main():
    torch.manual_seed(0)
    trainer = Trainer(Actor(3, 1), Critic(3, 1))
    buffer = ReplayBuffer(3, 1)
    for it in range(3):
        print(it, trainer.train(buffer))


if __name__ == "__main__":
    main()
