# corpus: pydreamer-style Dreamer agent with actor_grad='dynamics' feeds detached imagined features and reward predictions into the actor-critic, so the actor loss (negative lambda-return) has no graph and its backward fails.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/jurgisp/pydreamer/pull/14
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.distributions as D


@dataclass
class Config:
    obs_dim: int = 6
    action_dim: int = 2
    deter_dim: int = 32
    imag_horizon: int = 5
    gamma: float = 0.99
    lambda_gae: float = 0.95
    entropy_weight: float = 1e-3
    actor_grad: str = 'dynamics'
    adam_lr: float = 3e-4


def mlp(in_dim, out_dim, hidden=32):
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.ELU(), nn.Linear(hidden, out_dim))


class WorldModel(nn.Module):
    def __init__(self, conf):
        super().__init__()
        self.encoder = nn.Linear(conf.obs_dim, conf.deter_dim)
        self.cell = nn.GRUCell(conf.deter_dim + conf.action_dim, conf.deter_dim)
        self.prior = nn.Linear(conf.action_dim, conf.deter_dim)
        self.reward = mlp(conf.deter_dim, 1)
        self.terminal = mlp(conf.deter_dim, 1)
        self.decoder = mlp(conf.deter_dim, conf.obs_dim)

    def forward_prior(self, action, state):
        return self.cell(torch.cat([self.prior(action), action], -1), state)

    def training_step(self, obs, actions, rewards, terminals, in_state):
        state, states = in_state, []
        for t in range(obs.shape[0]):
            embed = self.encoder(obs[t])
            state = self.cell(torch.cat([embed, actions[t]], -1), state)
            states.append(state)
        features = torch.stack(states)
        loss_model = ((self.decoder(features) - obs) ** 2).mean() \
            + ((self.reward(features).squeeze(-1) - rewards) ** 2).mean() \
            + nn.functional.binary_cross_entropy_with_logits(self.terminal(features).squeeze(-1), terminals)
        return loss_model, features, states[-1]


class ActorCritic(nn.Module):
    def __init__(self, conf):
        super().__init__()
        self.gamma, self.lambda_ = conf.gamma, conf.lambda_gae
        self.entropy_weight, self.actor_grad = conf.entropy_weight, conf.actor_grad
        self.actor = mlp(conf.deter_dim, 2 * conf.action_dim)
        self.critic = mlp(conf.deter_dim, 1)
        self.critic_target = mlp(conf.deter_dim, 1)
        self.critic_target.requires_grad_(False)

    def forward_actor(self, features):
        mean, std = self.actor(features).chunk(2, -1)
        return D.Independent(D.Normal(torch.tanh(mean), nn.functional.softplus(std) + 0.1), 1)

    def training_step(self, features, actions, rewards, terminals):
        reward1, terminal0, terminal1 = rewards[1:], terminals[:-1], terminals[1:]
        value_t = self.critic_target(features).squeeze(-1)
        value0t, value1t = value_t[:-1], value_t[1:]
        advantage = - value0t + reward1 + self.gamma * (1.0 - terminal1) * value1t
        advantage_gae, agae = [], None
        for adv, term in zip(reversed(advantage.unbind()), reversed(terminal1.unbind())):
            agae = adv if agae is None else adv + self.lambda_ * self.gamma * (1.0 - term) * agae
            advantage_gae.append(agae)
        advantage_gae.reverse()
        advantage_gae = torch.stack(advantage_gae)
        value_target = advantage_gae + value0t
        reality_weight = (1 - terminal0).log().cumsum(dim=0).exp()

        value0 = self.critic(features).squeeze(-1)[:-1]
        loss_critic = (0.5 * torch.square(value_target.detach() - value0) * reality_weight).mean()

        policy_distr = self.forward_actor(features[:-1])
        if self.actor_grad == 'reinforce':
            loss_policy = - policy_distr.log_prob(actions) * advantage_gae.detach()
            loss_actor = loss_policy - self.entropy_weight * policy_distr.entropy()
        elif self.actor_grad == 'dynamics':
            loss_actor = - value_target
        else:
            assert False, self.actor_grad
        loss_actor = (loss_actor * reality_weight).mean()
        return loss_actor, loss_critic


class Dreamer(nn.Module):
    def __init__(self, conf):
        super().__init__()
        self.conf = conf
        self.wm = WorldModel(conf)
        self.ac = ActorCritic(conf)

    def init_optimizers(self, lr):
        return (torch.optim.Adam(self.wm.parameters(), lr=lr),
                torch.optim.Adam(self.ac.actor.parameters(), lr=lr),
                torch.optim.Adam(self.ac.critic.parameters(), lr=lr))

    def dream(self, in_state, imag_horizon, dynamics_gradients):
        features, actions, state = [], [], in_state
        self.wm.requires_grad_(False)
        for _ in range(imag_horizon):
            action_dist = self.ac.forward_actor(state)
            action = action_dist.rsample() if dynamics_gradients else action_dist.sample()
            features.append(state)
            actions.append(action)
            state = self.wm.forward_prior(action, state)
        features.append(state)
        features, actions = torch.stack(features), torch.stack(actions)
        rewards = self.wm.reward(features).squeeze(-1)
        terminals = torch.sigmoid(self.wm.terminal(features)).squeeze(-1)
        self.wm.requires_grad_(True)
        return features, actions, rewards, terminals

    def training_step(self, batch, in_state):
        loss_model, features, out_state = self.wm.training_step(
            batch['obs'], batch['action'], batch['reward'], batch['terminal'], in_state)
        in_state_dream = features.detach().flatten(0, 1)
        features_dream, actions_dream, rewards_dream, terminals_dream = \
            self.dream(in_state_dream, self.conf.imag_horizon, self.ac.actor_grad == 'dynamics')
        loss_actor, loss_critic = self.ac.training_step(
            features_dream.detach(), actions_dream.detach(),
            rewards_dream.detach(), terminals_dream.detach())  # also: GG106
        return (loss_model, loss_actor, loss_critic), out_state.detach()


def random_batch(conf, T=8, B=4):
    return {'obs': torch.randn(T, B, conf.obs_dim),
            'action': torch.randn(T, B, conf.action_dim).tanh(),
            'reward': torch.randn(T, B),
            'terminal': torch.zeros(T, B)}


def train(conf, steps=3):
    model = Dreamer(conf)
    optimizers = model.init_optimizers(conf.adam_lr)
    state = torch.zeros(4, conf.deter_dim)
    for step in range(steps):
        losses, state = model.training_step(random_batch(conf), state)
        for opt in optimizers:
            opt.zero_grad()
        for loss in losses:
            loss.backward()  # expect: GG106
        for opt in optimizers:
            opt.step()
        print(step, [round(l.item(), 4) for l in losses])


def main():
    torch.manual_seed(0)
    train(Config())


if __name__ == "__main__":
    main()
