# corpus: GAIL reward provider trains its discriminator with a gradient penalty on policy/expert interpolations computed by autograd.grad(create_graph=True), expert actions taken from the expert batch (correct)
# source: https://github.com/Unity-Technologies/ml-agents/pull/4425
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class GAILSettings:
    obs_size: int = 8
    action_size: int = 2
    hidden_units: int = 32
    learning_rate: float = 3e-4
    gradient_penalty_weight: float = 10.0
    use_actions: bool = True


class DiscriminatorNetwork(nn.Module):
    EPSILON = 1e-7

    def __init__(self, settings):
        super().__init__()
        self._settings = settings
        in_size = settings.obs_size + (settings.action_size if settings.use_actions else 0)
        self.encoder = nn.Sequential(nn.Linear(in_size, settings.hidden_units), nn.LeakyReLU(0.2),
                                     nn.Linear(settings.hidden_units, settings.hidden_units), nn.LeakyReLU(0.2))
        self._estimator = nn.Sequential(nn.Linear(settings.hidden_units, 1), nn.Sigmoid())

    def get_action_input(self, mini_batch):
        return mini_batch["actions"]

    def compute_estimate(self, obs, actions=None):
        inputs = torch.cat([obs, actions], dim=1) if self._settings.use_actions else obs
        return self._estimator(self.encoder(inputs))

    def compute_loss(self, policy_batch, expert_batch):
        stats = {}
        policy_estimate = self.compute_estimate(policy_batch["obs"], self.get_action_input(policy_batch))
        expert_estimate = self.compute_estimate(expert_batch["obs"], self.get_action_input(expert_batch))
        stats["Policy/GAIL Policy Estimate"] = policy_estimate.mean().item()
        stats["Policy/GAIL Expert Estimate"] = expert_estimate.mean().item()
        discriminator_loss = -(
            torch.log(expert_estimate + self.EPSILON) + torch.log(1.0 - policy_estimate + self.EPSILON)
        ).mean()
        stats["Losses/GAIL Loss"] = discriminator_loss.item()
        total_loss = discriminator_loss
        if self._settings.gradient_penalty_weight > 0.0:
            gradient_magnitude_loss = self._settings.gradient_penalty_weight * self.compute_gradient_magnitude(
                policy_batch, expert_batch
            )
            stats["Policy/GAIL Grad Mag Loss"] = gradient_magnitude_loss.item()
            total_loss = total_loss + gradient_magnitude_loss
        return total_loss, stats

    def compute_gradient_magnitude(self, policy_batch, expert_batch):
        policy_obs, expert_obs = policy_batch["obs"], expert_batch["obs"]
        obs_epsilon = torch.rand(policy_obs.shape)
        encoder_input = obs_epsilon * policy_obs + (1 - obs_epsilon) * expert_obs
        encoder_input.requires_grad_(True)
        inputs = [encoder_input]
        if self._settings.use_actions:
            policy_action = self.get_action_input(policy_batch)
            expert_action = self.get_action_input(expert_batch)
            action_epsilon = torch.rand(policy_action.shape)
            action_input = action_epsilon * policy_action + (1 - action_epsilon) * expert_action
            action_input.requires_grad_(True)
            inputs.append(action_input)
        estimate = self.compute_estimate(*inputs).squeeze(1).sum()
        gradient = torch.autograd.grad(estimate, inputs, create_graph=True)
        safe_norm = (torch.cat(gradient, dim=1) ** 2).sum(1).sqrt()
        return ((safe_norm - 1) ** 2).mean()


class GAILRewardProvider:
    def __init__(self, settings):
        self._discriminator_network = DiscriminatorNetwork(settings)
        self.optimizer = torch.optim.Adam(self._discriminator_network.parameters(), lr=settings.learning_rate)

    def evaluate(self, mini_batch):
        with torch.no_grad():
            estimates = self._discriminator_network.compute_estimate(mini_batch["obs"], mini_batch["actions"])
            return -torch.log(1.0 - estimates.squeeze(1) * (1.0 - DiscriminatorNetwork.EPSILON))

    def update(self, policy_batch, expert_batch):
        loss, stats = self._discriminator_network.compute_loss(policy_batch, expert_batch)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return stats


def make_batch(settings, n, shift):
    return {"obs": torch.randn(n, settings.obs_size) + shift, "actions": torch.tanh(torch.randn(n, settings.action_size) + shift)}


def main():
    torch.manual_seed(0)
    settings = GAILSettings()
    provider = GAILRewardProvider(settings)
    for step in range(5):
        stats = provider.update(make_batch(settings, 16, 0.0), make_batch(settings, 16, 1.0))
    print(stats, provider.evaluate(make_batch(settings, 4, 0.0)))


if __name__ == "__main__":
    main()
