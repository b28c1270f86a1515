# corpus: option-critic agent meant to stop the intra-option policy gradient at the option-value baseline, but writes Q.detach() as a bare statement, so the actor loss silently trains the Q head and the shared features
# source: https://github.com/lweitkamp/option-critic-pytorch/issues/2
import argparse
from copy import deepcopy

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical


class OptionCriticFeatures(nn.Module):
    def __init__(self, in_features, num_actions, num_options, temperature=1.0):
        super().__init__()
        self.num_options = num_options
        self.temperature = temperature
        self.features = nn.Sequential(nn.Linear(in_features, 32), nn.ReLU(), nn.Linear(32, 64), nn.ReLU())
        self.Q = nn.Linear(64, num_options)
        self.terminations = nn.Linear(64, num_options)
        self.options_W = nn.Parameter(torch.zeros(num_options, 64, num_actions))
        self.options_b = nn.Parameter(torch.zeros(num_options, num_actions))

    def get_state(self, obs):
        if obs.ndim < 2:
            obs = obs.unsqueeze(0)
        return self.features(obs)

    def get_Q(self, state):
        return self.Q(state)

    def get_terminations(self, state):
        return self.terminations(state).sigmoid()

    def predict_option_termination(self, state, current_option):
        termination = self.get_terminations(state)[:, current_option].sigmoid()
        option_termination = bool(torch.bernoulli(termination).item())
        next_option = self.get_Q(state).argmax(dim=-1)
        return option_termination, int(next_option.item())

    def get_action(self, state, option):
        logits = state.data @ self.options_W[option] + self.options_b[option]
        action_dist = Categorical(logits=logits / self.temperature)
        action = action_dist.sample()
        return int(action.item()), action_dist.log_prob(action), action_dist.entropy()


def critic_loss(model, model_prime, data_batch, args):
    obs, options, rewards, next_obs, dones = data_batch
    batch_idx = torch.arange(len(options))
    states = model.get_state(obs).squeeze(0)
    Q = model.get_Q(states)
    with torch.no_grad():
        next_states_prime = model_prime.get_state(next_obs).squeeze(0)
        next_Q_prime = model_prime.get_Q(next_states_prime)
        next_states = model.get_state(next_obs).squeeze(0)
        next_termination_probs = model.get_terminations(next_states)
        next_options_term_prob = next_termination_probs[batch_idx, options]
        gt = rewards + (1 - dones) * args.gamma * (
            (1 - next_options_term_prob) * next_Q_prime[batch_idx, options]
            + next_options_term_prob * next_Q_prime.max(dim=-1)[0]
        )
    return (Q[batch_idx, options] - gt).pow(2).mul(0.5).mean()


def actor_loss(obs, option, logp, entropy, reward, done, next_obs, model, model_prime, args):
    state = model.get_state(obs)
    next_state = model.get_state(next_obs)
    next_state_prime = model_prime.get_state(next_obs)

    option_term_prob = model.get_terminations(state)[:, option]
    next_option_term_prob = model.get_terminations(next_state)[:, option].detach()

    Q = model.get_Q(state).squeeze()
    Q.detach()  # expect: GG112
    next_Q_prime = model_prime.get_Q(next_state_prime).detach().squeeze()

    gt = reward + (1 - done) * args.gamma * (
        (1 - next_option_term_prob) * next_Q_prime[option] + next_option_term_prob * next_Q_prime.max(dim=-1)[0]
    )
    termination_loss = option_term_prob * (Q[option].detach() - Q.max(dim=-1)[0].detach() + args.termination_reg) * (1 - done)
    policy_loss = -logp * (gt.detach() - Q[option]) - args.entropy_reg * entropy
    return (termination_loss + policy_loss).sum()


def run(args):
    torch.manual_seed(0)
    np.random.seed(0)
    option_critic = OptionCriticFeatures(in_features=4, num_actions=2, num_options=args.num_options)
    option_critic_prime = deepcopy(option_critic)
    optim = torch.optim.RMSprop(option_critic.parameters(), lr=args.learning_rate)
    buffer = []
    obs = torch.randn(4)
    current_option, option_termination = 0, True
    for step in range(args.max_steps):
        state = option_critic.get_state(obs)
        if option_termination:
            current_option = int(np.random.randint(args.num_options))
        action, logp, entropy = option_critic.get_action(state, current_option)
        next_obs, reward, done = torch.randn(4), float(np.random.rand()), step % 10 == 9
        buffer.append((obs, current_option, reward, next_obs, float(done)))

        loss = actor_loss(obs, current_option, logp, entropy, reward, float(done), next_obs,
                          option_critic, option_critic_prime, args)
        if len(buffer) >= args.batch_size and step % args.update_frequency == 0:
            batch = buffer[-args.batch_size:]
            obs_b, opt_b, rew_b, next_b, done_b = zip(*batch)
            data_batch = (torch.stack(obs_b), torch.tensor(opt_b), torch.tensor(rew_b),
                          torch.stack(next_b), torch.tensor(done_b))
            loss = loss + critic_loss(option_critic, option_critic_prime, data_batch, args)
        optim.zero_grad()
        loss.backward()
        optim.step()
        if step % args.freeze_interval == 0:
            option_critic_prime.load_state_dict(option_critic.state_dict())
        with torch.no_grad():
            option_termination, _ = option_critic.predict_option_termination(option_critic.get_state(next_obs), current_option)
        obs = next_obs
    return option_critic


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-options", type=int, default=2)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--termination-reg", type=float, default=0.01)
    parser.add_argument("--entropy-reg", type=float, default=0.01)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--update-frequency", type=int, default=4)
    parser.add_argument("--freeze-interval", type=int, default=20)
    parser.add_argument("--max-steps", type=int, default=40)
    run(parser.parse_args([]))


if __name__ == "__main__":
    main()
