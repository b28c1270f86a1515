# corpus: SAC agent (spirl-style ACAgent/SACAgent with _perform_update helper) computes the policy loss through the critics, then steps the critic optimizers, then backpropagates the stale policy loss: the critics' saved weights were changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/clvrai/spirl/issues/15
import argparse
import copy

import torch
import torch.nn as nn


class AttrDict(dict):
    __getattr__ = dict.__getitem__

    def __setattr__(self, key, value):
        self[key] = value


class TensorModule(nn.Module):
    """Wraps a single tensor so it can be handed to an optimizer like a network."""

    def __init__(self, t):
        super().__init__()
        self.t = nn.Parameter(t)

    def forward(self, *args, **kwargs):
        return self.t


def mlp(inp, out, hidden=32):
    return nn.Sequential(nn.Linear(inp, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, out))


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim, action_dim):
        super().__init__()
        self.net = mlp(obs_dim, 2 * action_dim)

    def forward(self, obs):
        mean, log_std = self.net(obs).chunk(2, dim=-1)
        log_std = log_std.clamp(-5.0, 2.0)
        dist = torch.distributions.Normal(mean, log_std.exp())
        raw = dist.rsample()
        action = torch.tanh(raw)
        log_prob = dist.log_prob(raw).sum(-1) - torch.log(1 - action.pow(2) + 1e-6).sum(-1)
        return AttrDict(action=action, log_prob=log_prob, dist=dist)


class Critic(nn.Module):
    def __init__(self, obs_dim, action_dim):
        super().__init__()
        self.net = mlp(obs_dim + action_dim, 1)

    def forward(self, obs, action):
        return AttrDict(q=self.net(torch.cat([obs, action], dim=-1)))


class ReplayBuffer:
    def __init__(self, obs_dim, action_dim, size=256, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.data = AttrDict(
            observation=torch.randn(size, obs_dim, generator=g),
            action=torch.rand(size, action_dim, generator=g) * 2 - 1,
            reward=torch.randn(size, generator=g),
            observation_next=torch.randn(size, obs_dim, generator=g),
            done=(torch.rand(size, generator=g) < 0.05).float(),
        )
        self.size = size

    def sample(self, n_samples):
        idx = torch.randint(0, self.size, (n_samples,))
        return AttrDict({k: v[idx] for k, v in self.data.items()})


class SACAgent:
    def __init__(self, hp):
        self._hp = hp
        self.policy = GaussianPolicy(hp.obs_dim, hp.action_dim)
        self.policy_opt = torch.optim.Adam(self.policy.parameters(), lr=hp.policy_lr)

        self.critics = nn.ModuleList([Critic(hp.obs_dim, hp.action_dim) for _ in range(2)])
        self.critic_targets = copy.deepcopy(self.critics)
        self.critic_opts = [torch.optim.Adam(c.parameters(), lr=hp.critic_lr) for c in self.critics]

        self._log_alpha = TensorModule(torch.zeros(1))
        self.alpha_opt = torch.optim.Adam(self._log_alpha.parameters(), lr=hp.policy_lr)
        self._target_entropy = -1.0 * hp.action_dim

        self.replay_buffer = ReplayBuffer(hp.obs_dim, hp.action_dim)
        self._update_steps = 0

    @property
    def alpha(self):
        return self._log_alpha().exp()

    def update(self):
        for _ in range(self._hp.update_iterations):
            experience_batch = self.replay_buffer.sample(n_samples=self._hp.batch_size)

            policy_output = self._run_policy(experience_batch.observation)

            # update alpha
            alpha_loss = self._compute_alpha_loss(policy_output)
            self._perform_update(alpha_loss, self.alpha_opt, self._log_alpha)

            # compute policy loss
            policy_loss = self._compute_policy_loss(experience_batch, policy_output)  # also: GG111

            # compute target Q value
            with torch.no_grad():
                policy_output_next = self._run_policy(experience_batch.observation_next)
                value_next = self._compute_next_value(experience_batch, policy_output_next)
                q_target = experience_batch.reward * self._hp.reward_scale + \
                    (1 - experience_batch.done) * self._hp.discount_factor * value_next
                q_target = q_target.detach()

            # compute critic loss
            qs = self._compute_q_estimates(experience_batch)
            critic_losses = [0.5 * (q - q_target).pow(2).mean() for q in qs]

            # update critic networks
            [self._perform_update(critic_loss, critic_opt, critic)  # expect: GG111
             for critic_loss, critic_opt, critic in zip(critic_losses, self.critic_opts, self.critics)]

            # update policy network on policy loss
            self._perform_update(policy_loss, self.policy_opt, self.policy)  # also: GG111

            # update target networks
            [self._soft_update_target_network(critic_target, critic)
             for critic_target, critic in zip(self.critic_targets, self.critics)]

            info = AttrDict(
                policy_loss=policy_loss.item(),
                alpha_loss=alpha_loss.item(),
                critic_loss_1=critic_losses[0].item(),
                critic_loss_2=critic_losses[1].item(),
                alpha=self.alpha.item(),
            )
        return info

    def _perform_update(self, loss, opt, network):
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(network.parameters(), 10.0)
        opt.step()

    def _run_policy(self, obs):
        return self.policy(obs)

    def _compute_alpha_loss(self, policy_output):
        self._update_steps += 1
        return -1 * (self.alpha * (self._target_entropy + policy_output.log_prob).detach()).mean()

    def _compute_policy_loss(self, experience_batch, policy_output):
        q_est = torch.min(*[critic(experience_batch.observation, policy_output.action).q
                            for critic in self.critics])
        policy_loss = -1 * q_est + self.alpha * policy_output.log_prob[:, None]
        return policy_loss.mean()

    def _compute_next_value(self, experience_batch, policy_output):
        q_next = torch.min(*[critic_target(experience_batch.observation_next, policy_output.action).q
                             for critic_target in self.critic_targets])
        next_val = q_next - self.alpha * policy_output.log_prob[:, None]
        return next_val.squeeze(-1)

    def _compute_q_estimates(self, experience_batch):
        return [critic(experience_batch.observation, experience_batch.action.detach()).q.squeeze(-1)
                for critic in self.critics]

    @torch.no_grad()
    def _soft_update_target_network(self, target, source):
        for target_param, param in zip(target.parameters(), source.parameters()):
            target_param.mul_(1 - self._hp.tau).add_(self._hp.tau * param)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--obs_dim", type=int, default=6)
    parser.add_argument("--action_dim", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--update_iterations", type=int, default=2)
    parser.add_argument("--policy_lr", type=float, default=3e-4)
    parser.add_argument("--critic_lr", type=float, default=3e-4)
    parser.add_argument("--reward_scale", type=float, default=1.0)
    parser.add_argument("--discount_factor", type=float, default=0.99)
    parser.add_argument("--tau", type=float, default=5e-3)
    hp = AttrDict(vars(parser.parse_args()))
    torch.manual_seed(0)
    agent = SACAgent(hp)
    for step in range(3):
        info = agent.update()
        print(step, info)


if __name__ == "__main__":
    main()
