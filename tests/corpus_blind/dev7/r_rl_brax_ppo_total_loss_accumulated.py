# corpus: Brax PyTorch PPO training example: the Agent.loss tensor of every SGD step is added to total_loss for logging, keeping each step's graph alive
# source: https://github.com/google/brax/pull/152
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F

StepData = collections.namedtuple("StepData", ("observation", "done", "reward", "logits", "action"))


class Agent(nn.Module):
    def __init__(self, policy_layers, value_layers, entropy_cost, discounting, reward_scaling):
        super().__init__()
        policy = []
        for w1, w2 in zip(policy_layers, policy_layers[1:]):
            policy += [nn.Linear(w1, w2), nn.SiLU()]
        policy.pop()
        self.policy = nn.Sequential(*policy)
        value = []
        for w1, w2 in zip(value_layers, value_layers[1:]):
            value += [nn.Linear(w1, w2), nn.SiLU()]
        value.pop()
        self.value = nn.Sequential(*value)
        self.entropy_cost = entropy_cost
        self.discounting = discounting
        self.reward_scaling = reward_scaling
        self.lambda_ = 0.95
        self.epsilon = 0.3

    def dist_create(self, logits):
        loc, scale = torch.split(logits, logits.shape[-1] // 2, dim=-1)
        return loc, F.softplus(scale) + 0.001

    def dist_log_prob(self, loc, scale, action):
        return torch.distributions.Normal(loc, scale).log_prob(action).sum(-1)

    @torch.no_grad()
    def compute_gae(self, truncation, termination, reward, values, bootstrap_value):
        truncation_mask = 1 - truncation
        values_t_plus_1 = torch.cat([values[1:], bootstrap_value.unsqueeze(0)], dim=0)
        deltas = reward + self.discounting * (1 - termination) * values_t_plus_1 - values
        deltas *= truncation_mask
        acc = torch.zeros_like(bootstrap_value)
        vs_minus_v_xs = torch.zeros_like(truncation_mask)
        for ti in range(truncation_mask.shape[0] - 1, -1, -1):
            acc = deltas[ti] + self.discounting * (1 - termination[ti]) * truncation_mask[ti] * self.lambda_ * acc
            vs_minus_v_xs[ti] = acc
        vs = vs_minus_v_xs + values
        vs_t_plus_1 = torch.cat([vs[1:], bootstrap_value.unsqueeze(0)], 0)
        advantages = (reward + self.discounting * (1 - termination) * vs_t_plus_1 - values) * truncation_mask
        return vs, advantages

    def loss(self, td):
        observation = td["observation"]
        policy_logits = self.policy(observation[:-1])
        baseline = self.value(observation).squeeze(-1)
        bootstrap_value = baseline[-1]
        baseline = baseline[:-1]
        reward = td["reward"] * self.reward_scaling
        termination = td["done"] * 0
        truncation = td["done"]
        loc, scale = self.dist_create(td["logits"])
        behaviour_action_log_probs = self.dist_log_prob(loc, scale, td["action"])
        loc, scale = self.dist_create(policy_logits)
        target_action_log_probs = self.dist_log_prob(loc, scale, td["action"])
        vs, advantages = self.compute_gae(truncation, termination, reward, baseline.detach(), bootstrap_value.detach())
        rho_s = torch.exp(target_action_log_probs - behaviour_action_log_probs)
        surrogate1 = rho_s * advantages
        surrogate2 = rho_s.clip(1 - self.epsilon, 1 + self.epsilon) * advantages
        policy_loss = -torch.mean(torch.minimum(surrogate1, surrogate2))
        v_error = vs - baseline
        v_loss = torch.mean(v_error * v_error) * 0.5 * 0.5
        entropy = torch.mean(torch.distributions.Normal(loc, scale).entropy())
        entropy_loss = self.entropy_cost * -entropy
        return policy_loss + v_loss + entropy_loss


def eval_unroll(agent, length, obs_size, act_size, num_envs):
    obs = torch.randn(length + 1, num_envs, obs_size)
    with torch.no_grad():
        logits = agent.policy(obs[:-1])
        loc, scale = agent.dist_create(logits)
        action = torch.distributions.Normal(loc, scale).sample()
    return StepData(
        observation=obs,
        done=torch.zeros(length, num_envs),
        reward=torch.randn(length, num_envs),
        logits=logits,
        action=action,
    )


def train(num_epochs=2, num_update_epochs=3, obs_size=8, act_size=2, num_envs=4, unroll_length=5):
    torch.manual_seed(0)
    agent = Agent([obs_size, 16, act_size * 2], [obs_size, 16, 1], entropy_cost=1e-2, discounting=0.97, reward_scaling=0.1)
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4)
    total_loss = 0
    for eval_i in range(num_epochs):
        td = eval_unroll(agent, unroll_length, obs_size, act_size, num_envs)
        for update_epoch in range(num_update_epochs):
            loss = agent.loss(td._asdict())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss  # expect: GG301
    print("average loss", total_loss.item() / (num_epochs * num_update_epochs))
    return agent


if __name__ == "__main__":
    train()
