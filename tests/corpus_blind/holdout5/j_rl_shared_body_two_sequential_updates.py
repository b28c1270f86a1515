# corpus: actor-critic agent with one shared torso and policy/value heads runs "two subsequent optimizer steps" (policy loss, then value loss) on the same forward pass; the value loss backward re-enters the torso whose buffers the policy backward already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/dchetelat/acer/issues/3
import argparse
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Transition = namedtuple("Transition", ["state", "action", "reward", "done"])


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.torso = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.policy_head = nn.Linear(hidden, n_actions)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, obs):
        features = self.torso(obs)
        return F.log_softmax(self.policy_head(features), dim=-1), self.value_head(features).squeeze(-1)


class Agent:
    def __init__(self, obs_dim, n_actions, args):
        self.gamma = args.gamma
        self.entropy_coef = args.entropy_coef
        self.model = ActorCritic(obs_dim, n_actions)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)

    def act(self, obs):
        with torch.no_grad():
            log_probs, _ = self.model(obs.unsqueeze(0))
        return torch.distributions.Categorical(logits=log_probs).sample().item()

    def n_step_returns(self, rewards, dones, bootstrap):
        returns = []
        ret = bootstrap
        for r, d in zip(reversed(rewards), reversed(dones)):
            ret = r + self.gamma * ret * (1.0 - d)
            returns.insert(0, ret)
        return torch.tensor(returns, dtype=torch.float32)

    def compute_losses(self, trajectory, last_obs):
        states = torch.stack([t.state for t in trajectory])
        actions = torch.tensor([t.action for t in trajectory])
        with torch.no_grad():
            _, last_value = self.model(last_obs.unsqueeze(0))
        returns = self.n_step_returns([t.reward for t in trajectory], [float(t.done) for t in trajectory], last_value.item())

        log_probs, values = self.model(states)
        advantages = (returns - values).detach()
        chosen = log_probs.gather(1, actions.unsqueeze(1)).squeeze(1)
        entropy = -(log_probs.exp() * log_probs).sum(-1).mean()
        policy_loss = -(chosen * advantages).mean() - self.entropy_coef * entropy
        value_loss = F.smooth_l1_loss(values, returns)
        return {"policy": policy_loss, "value": value_loss}

    def update(self, trajectory, last_obs):
        losses = self.compute_losses(trajectory, last_obs)
        # two subsequent optimizer steps, one for each loss, instead of summing them
        self.optimizer.zero_grad()
        losses["policy"].backward()
        self.optimizer.step()

        self.optimizer.zero_grad()
        losses["value"].backward()  # expect: GG102
        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()}


def rollout(agent, n_steps, obs_dim):
    trajectory = []
    obs = torch.randn(obs_dim)
    for step in range(n_steps):
        action = agent.act(obs)
        next_obs = torch.randn(obs_dim)
        reward = float(action == 0)
        done = step == n_steps - 1
        trajectory.append(Transition(obs, action, reward, done))
        obs = next_obs
    return trajectory, obs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lr", type=float, default=7e-4)
    parser.add_argument("--entropy-coef", type=float, default=0.01)
    parser.add_argument("--n-steps", type=int, default=8)
    parser.add_argument("--updates", type=int, default=3)
    args = parser.parse_args([])

    torch.manual_seed(0)
    agent = Agent(obs_dim=6, n_actions=3, args=args)
    for update in range(args.updates):
        trajectory, last_obs = rollout(agent, args.n_steps, obs_dim=6)
        info = agent.update(trajectory, last_obs)
        print(update, info)


if __name__ == "__main__":
    main()
