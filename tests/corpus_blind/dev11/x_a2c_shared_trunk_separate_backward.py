# corpus: A2C agent whose actor and critic share one trunk (shared_layers) but keeps two optimizers and two backward calls; the actor backward frees the trunk, so the value backward fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/SforAiDl/genrl/pull/307
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

Rollout = namedtuple("Rollout", ["observations", "actions", "returns", "advantages"])


class SharedActorCritic(nn.Module):
    def __init__(self, state_dim, action_dim, hidden=16):
        super().__init__()
        self.shared = nn.Linear(state_dim, hidden)
        self.actor = nn.Linear(hidden, action_dim)
        self.critic = nn.Linear(hidden, 1)

    def get_features(self, state):
        return torch.tanh(self.shared(state))  # also: GG102

    def forward(self, state):
        features = self.get_features(state)
        dist = Categorical(logits=self.actor(features))
        return dist, self.critic(features).squeeze(-1)

    def get_value(self, state):
        return self.forward(state)[1]


class RolloutBuffer:
    def __init__(self, n_steps, state_dim, gamma=0.99):
        self.obs = torch.randn(n_steps, state_dim)
        self.actions = torch.randint(0, 2, (n_steps,))
        self.rewards = torch.randn(n_steps)
        self.gamma = gamma

    def get(self, values):
        returns = torch.zeros_like(self.rewards)
        running = 0.0
        for t in reversed(range(len(self.rewards))):
            running = self.rewards[t] + self.gamma * running
            returns[t] = running
        advantages = returns - values.detach()
        return Rollout(self.obs, self.actions, returns, advantages)


class A2C:
    def __init__(self, state_dim=4, action_dim=2, value_coeff=0.5, entropy_coeff=0.01):
        self.ac = SharedActorCritic(state_dim, action_dim)
        actor_params = list(self.ac.shared.parameters()) + list(self.ac.actor.parameters())
        self.optimizer_policy = torch.optim.Adam(actor_params, lr=1e-3)
        self.optimizer_value = torch.optim.Adam(self.ac.critic.parameters(), lr=1e-3)
        self.value_coeff = value_coeff
        self.entropy_coeff = entropy_coeff
        self.logs = {"policy_loss": [], "value_loss": []}

    def evaluate_actions(self, states, actions):
        dist, values = self.ac(states)
        return values, dist.log_prob(actions), dist.entropy()

    def update_params(self, rollout):
        values, log_prob, entropy = self.evaluate_actions(rollout.observations, rollout.actions)
        policy_loss = -torch.mean(rollout.advantages * log_prob)
        value_loss = self.value_coeff * F.mse_loss(rollout.returns, values)
        actor_loss = policy_loss - self.entropy_coeff * torch.mean(entropy)
        self.logs["policy_loss"].append(policy_loss.item())
        self.logs["value_loss"].append(value_loss.item())

        self.optimizer_policy.zero_grad()
        actor_loss.backward()  # also: GG102
        torch.nn.utils.clip_grad_norm_(self.optimizer_policy.param_groups[0]["params"], 0.5)
        self.optimizer_policy.step()

        self.optimizer_value.zero_grad()
        value_loss.backward()  # expect: GG102
        torch.nn.utils.clip_grad_norm_(self.ac.critic.parameters(), 0.5)
        self.optimizer_value.step()


def main():
    torch.manual_seed(0)
    agent = A2C()
    buffer = RolloutBuffer(n_steps=8, state_dim=4)
    for update in range(3):
        with torch.no_grad():
            values = agent.ac.get_value(buffer.obs)
        agent.update_params(buffer.get(values))
        print(update, agent.logs["policy_loss"][-1], agent.logs["value_loss"][-1])


if __name__ == "__main__":
    main()
