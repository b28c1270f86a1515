# corpus: autonomous-learning-library style A2C with shared features; the feature network hands the heads a detached requires_grad copy and caches its graph, the policy and value heads backpropagate separately into that copy, and the shared body is backpropagated exactly once with the accumulated gradient (correct)
# source: https://github.com/cpnota/autonomous-learning-library/issues/61
import torch
import torch.nn as nn
from torch.distributions import Categorical
from torch.nn.functional import mse_loss


class FeatureNetwork:
    def __init__(self, model, optimizer, clip_grad=0.5):
        self.model = model
        self.optimizer = optimizer
        self.clip_grad = clip_grad
        self._cache = []
        self._out = []

    def __call__(self, states):
        features = self.model(states)
        graphs = features.detach()
        graphs.requires_grad = True
        self._cache.append(features)
        self._out.append(graphs)
        return graphs

    def reinforce(self):
        graphs, grads = self._decache()
        graphs.backward(grads)
        nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad)
        self.optimizer.step()
        self.optimizer.zero_grad()

    def _decache(self):
        graphs = torch.cat(self._cache)
        grads = torch.cat([out.grad for out in self._out])
        self._cache = []
        self._out = []
        return graphs, grads


class SoftmaxPolicy:
    def __init__(self, model, optimizer, entropy_loss_scaling=0.01):
        self.model = model
        self.optimizer = optimizer
        self.entropy_loss_scaling = entropy_loss_scaling

    def __call__(self, features):
        return Categorical(logits=self.model(features))

    def reinforce(self, features, actions, advantages):
        dist = self(features)
        policy_loss = -(dist.log_prob(actions) * advantages).mean()
        entropy_loss = -dist.entropy().mean()
        loss = policy_loss + self.entropy_loss_scaling * entropy_loss
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.item()


class VNetwork:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def __call__(self, features):
        return self.model(features).squeeze(-1)

    def reinforce(self, features, targets):
        loss = mse_loss(self(features), targets)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.item()


class A2C:
    def __init__(self, features, v, policy, discount_factor=0.99):
        self.features = features
        self.v = v
        self.policy = policy
        self.discount_factor = discount_factor

    def train(self, states, actions, rewards, next_states, dones):
        features = self.features(states)
        with torch.no_grad():
            next_values = self.v(self.features.model(next_states))
        values = self.v(features)
        targets = rewards + self.discount_factor * next_values * (1 - dones)
        advantages = (targets - values).detach()
        value_loss = self.v.reinforce(features, targets)
        policy_loss = self.policy.reinforce(features, actions, advantages)
        self.features.reinforce()
        return value_loss, policy_loss


def main():
    torch.manual_seed(0)
    obs_dim, n_actions, n_envs = 8, 3, 6
    body = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU())
    value_head = nn.Linear(32, 1)
    policy_head = nn.Linear(32, n_actions)
    agent = A2C(
        FeatureNetwork(body, torch.optim.RMSprop(body.parameters(), lr=7e-4)),
        VNetwork(value_head, torch.optim.RMSprop(value_head.parameters(), lr=7e-4)),
        SoftmaxPolicy(policy_head, torch.optim.RMSprop(policy_head.parameters(), lr=7e-4)),
    )
    for step in range(3):
        states = torch.randn(n_envs, obs_dim)
        actions = torch.randint(0, n_actions, (n_envs,))
        rewards = torch.randn(n_envs)
        next_states = torch.randn(n_envs, obs_dim)
        dones = torch.zeros(n_envs)
        print(step, agent.train(states, actions, rewards, next_states, dones))


if __name__ == "__main__":
    main()
