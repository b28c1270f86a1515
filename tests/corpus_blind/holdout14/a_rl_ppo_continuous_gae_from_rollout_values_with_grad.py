# corpus: PPO continuous trainer (ppo-implementation-details ppo_continuous shape) that computes GAE advantages and returns once after the rollout, but from values stored by agent.get_action_and_value() outside torch.no_grad(); the advantages carry the rollout graph, so the second minibatch backward through them fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/vwxyzjn/ppo-implementation-details/issues/5
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
from torch.distributions.normal import Normal


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.critic = nn.Sequential(layer_init(nn.Linear(obs_dim, 32)), nn.Tanh(), layer_init(nn.Linear(32, 1), std=1.0))
        self.actor_mean = nn.Sequential(layer_init(nn.Linear(obs_dim, 32)), nn.Tanh(),
                                        layer_init(nn.Linear(32, act_dim), std=0.01))
        self.actor_logstd = nn.Parameter(torch.zeros(1, act_dim))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        mean = self.actor_mean(x)
        probs = Normal(mean, self.actor_logstd.expand_as(mean).exp())
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


def rollout(agent, args):
    obs = torch.zeros((args.num_steps, args.num_envs, args.obs_dim))
    actions = torch.zeros((args.num_steps, args.num_envs, args.act_dim))
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = []
    next_obs = torch.randn(args.num_envs, args.obs_dim)
    for step in range(args.num_steps):
        obs[step] = next_obs
        action, logprob, _, value = agent.get_action_and_value(next_obs)  # expect: GG103
        values.append(value.flatten())
        actions[step] = action.detach()
        logprobs[step] = logprob.detach()
        rewards[step] = -action.detach().pow(2).sum(1)
        next_obs = torch.randn(args.num_envs, args.obs_dim)
    return obs, actions, logprobs, rewards, dones, torch.stack(values), next_obs


def compute_gae(agent, values, rewards, dones, next_obs, args):
    with torch.no_grad():
        next_value = agent.get_value(next_obs).reshape(1, -1)
    advantages = torch.zeros_like(rewards)
    lastgaelam = 0
    for t in reversed(range(args.num_steps)):
        nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
        delta = rewards[t] + args.gamma * nextvalues * (1.0 - dones[t]) - values[t]
        advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * (1.0 - dones[t]) * lastgaelam
    return advantages, advantages + values


def update(agent, optimizer, batch, args):
    b_obs, b_actions, b_logprobs, b_advantages, b_returns = batch
    b_inds = np.arange(args.batch_size)
    for epoch in range(args.update_epochs):
        np.random.shuffle(b_inds)
        for start in range(0, args.batch_size, args.minibatch_size):
            mb = b_inds[start:start + args.minibatch_size]
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_actions[mb])
            ratio = (newlogprob - b_logprobs[mb]).exp()
            mb_adv = b_advantages[mb]
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
            optimizer.zero_grad()
            loss.backward()  # also: GG103
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
    return loss.item()


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    args = SimpleNamespace(num_envs=2, num_steps=16, obs_dim=4, act_dim=2, gamma=0.99, gae_lambda=0.95,
                           update_epochs=2, minibatch_size=8, clip_coef=0.2, ent_coef=0.0, vf_coef=0.5,
                           max_grad_norm=0.5)
    args.batch_size = args.num_envs * args.num_steps
    agent = Agent(args.obs_dim, args.act_dim)
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4, eps=1e-5)
    for iteration in range(2):
        obs, actions, logprobs, rewards, dones, values, next_obs = rollout(agent, args)
        advantages, returns = compute_gae(agent, values, rewards, dones, next_obs, args)  # also: GG103
        batch = (obs.reshape(-1, args.obs_dim), actions.reshape(-1, args.act_dim), logprobs.reshape(-1),
                 advantages.reshape(-1), returns.reshape(-1))
        print("iteration", iteration, "loss", update(agent, optimizer, batch, args))


if __name__ == "__main__":
    main()
