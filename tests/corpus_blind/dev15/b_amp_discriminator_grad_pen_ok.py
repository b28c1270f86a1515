# corpus: AMP (adversarial motion prior) PPO update whose discriminator R1 gradient penalty is taken with autograd.grad(create_graph=True) on a detached expert batch, so the penalty itself trains the discriminator weights.
# source: https://github.com/gbionics/amp-rsl-rl/pull/58
import torch
import torch.nn as nn
from torch import autograd
from torch.nn import functional as F


class Discriminator(nn.Module):
    def __init__(self, input_dim, hidden_layer_sizes, reward_scale, use_minibatch_std=True):
        super().__init__()
        self.input_dim = input_dim
        self.reward_scale = reward_scale
        layers = []
        curr_in_dim = input_dim
        for hidden_dim in hidden_layer_sizes:
            layers.append(nn.Linear(curr_in_dim, hidden_dim))
            layers.append(nn.ReLU())
            curr_in_dim = hidden_dim
        self.trunk = nn.Sequential(*layers)
        self.use_minibatch_std = use_minibatch_std
        self.linear = nn.Linear(hidden_layer_sizes[-1] + (1 if use_minibatch_std else 0), 1)
        self.amp_normalizer = nn.Identity()
        self.loss_fun = torch.nn.BCEWithLogitsLoss()

    def forward(self, x):
        state, next_state = torch.split(x, self.input_dim // 2, dim=-1)
        x = torch.cat([self.amp_normalizer(state), self.amp_normalizer(next_state)], dim=-1)
        h = self.trunk(x)
        if self.use_minibatch_std:
            h = torch.cat([h, self._minibatch_std_scalar(h)], dim=-1)
        return self.linear(h)

    def _minibatch_std_scalar(self, h):
        if h.shape[0] <= 1:
            return h.new_zeros((h.shape[0], 1))
        s = h.float().std(dim=0, unbiased=False).mean()
        return s.expand(h.shape[0], 1).to(h.dtype)

    def predict_reward(self, state, next_state):
        with torch.no_grad():
            logit = self.forward(torch.cat([state, next_state], dim=-1))
            return (self.reward_scale * F.softplus(logit)).squeeze()

    def compute_loss(self, policy_d, expert_d, sample_amp_expert, sample_amp_policy, lambda_=10):
        grad_pen_loss = self.compute_grad_pen(expert_states=sample_amp_expert, lambda_=lambda_)
        expert_loss = self.loss_fun(expert_d, torch.ones_like(expert_d))
        policy_loss = self.loss_fun(policy_d, torch.zeros_like(policy_d))
        amp_loss = 0.5 * (expert_loss + policy_loss)
        return amp_loss, grad_pen_loss

    def compute_grad_pen(self, expert_states, lambda_=10):
        expert = torch.cat(expert_states, -1)
        data = expert.detach().requires_grad_(True)
        h = self.trunk(data)
        if self.use_minibatch_std:
            with torch.no_grad():
                s = self._minibatch_std_scalar(h)
            h = torch.cat([h, s], dim=-1)
        scores = self.linear(h)
        grad = autograd.grad(outputs=scores.sum(), inputs=data, create_graph=True,
                             retain_graph=True, only_inputs=True)[0]
        return 0.5 * lambda_ * (grad.pow(2).sum(dim=1)).mean()


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_dim, 16), nn.ELU(), nn.Linear(16, act_dim))
        self.critic = nn.Sequential(nn.Linear(obs_dim, 16), nn.ELU(), nn.Linear(16, 1))
        self.log_std = nn.Parameter(torch.zeros(act_dim))

    def evaluate(self, obs, actions):
        dist = torch.distributions.Normal(self.actor(obs), self.log_std.exp())
        return dist.log_prob(actions).sum(-1), self.critic(obs).squeeze(-1), dist.entropy().sum(-1)


class AMP_PPO:
    def __init__(self, actor_critic, discriminator, lr=1e-3, clip_param=0.2, num_learning_epochs=2):
        self.actor_critic = actor_critic
        self.discriminator = discriminator
        params = [{'params': actor_critic.parameters(), 'name': 'actor_critic'},
                  {'params': discriminator.trunk.parameters(), 'name': 'amp_trunk'},
                  {'params': discriminator.linear.parameters(), 'name': 'amp_head'}]
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.clip_param = clip_param
        self.num_learning_epochs = num_learning_epochs

    def update(self, batch, amp_policy, amp_expert):
        stats = {}
        for epoch in range(self.num_learning_epochs):
            log_prob, value, entropy = self.actor_critic.evaluate(batch['obs'], batch['actions'])
            ratio = torch.exp(log_prob - batch['old_log_prob'])
            surrogate = -batch['advantages'] * ratio
            surrogate_clipped = -batch['advantages'] * torch.clamp(ratio, 1 - self.clip_param, 1 + self.clip_param)
            surrogate_loss = torch.max(surrogate, surrogate_clipped).mean()
            value_loss = (batch['returns'] - value).pow(2).mean()

            policy_d = self.discriminator(torch.cat(amp_policy, dim=-1))
            expert_d = self.discriminator(torch.cat(amp_expert, dim=-1))
            amp_loss, grad_pen_loss = self.discriminator.compute_loss(policy_d, expert_d, amp_expert, amp_policy)

            loss = surrogate_loss + 0.5 * value_loss - 0.01 * entropy.mean() + amp_loss + grad_pen_loss
            self.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.actor_critic.parameters(), 1.0)
            self.optimizer.step()
            stats = {'surrogate': surrogate_loss.item(), 'amp': amp_loss.item(), 'grad_pen': grad_pen_loss.item()}
        return stats


def collect_rollout(actor_critic, discriminator, num_envs=8, obs_dim=4, act_dim=2):
    with torch.no_grad():
        obs = torch.randn(num_envs, obs_dim)
        next_obs = torch.randn(num_envs, obs_dim)
        dist = torch.distributions.Normal(actor_critic.actor(obs), actor_critic.log_std.exp())
        actions = dist.sample()
        old_log_prob = dist.log_prob(actions).sum(-1)
        style_reward = discriminator.predict_reward(obs, next_obs)
        returns = style_reward + torch.randn(num_envs)
        advantages = returns - actor_critic.critic(obs).squeeze(-1)
    batch = {'obs': obs, 'actions': actions, 'old_log_prob': old_log_prob,
             'returns': returns, 'advantages': advantages}
    return batch, (obs, next_obs)


def main():
    torch.manual_seed(0)
    obs_dim, act_dim = 4, 2
    actor_critic = ActorCritic(obs_dim, act_dim)
    discriminator = Discriminator(2 * obs_dim, [16, 16], reward_scale=1.0)
    alg = AMP_PPO(actor_critic, discriminator)
    for it in range(3):
        batch, amp_policy = collect_rollout(actor_critic, discriminator)
        amp_expert = (torch.randn(8, obs_dim), torch.randn(8, obs_dim))
        stats = alg.update(batch, amp_policy, amp_expert)
        print(it, stats)

    # the penalty alone must reach the discriminator weights
    discriminator.zero_grad()
    gp = discriminator.compute_grad_pen((torch.randn(8, obs_dim), torch.randn(8, obs_dim)))
    gp.backward()
    assert discriminator.trunk[0].weight.grad is not None and discriminator.trunk[0].weight.grad.abs().sum() > 0
    assert all(p.grad is not None for p in actor_critic.parameters())
    print("ok: grad penalty reaches discriminator trunk")


if __name__ == "__main__":
    main()
