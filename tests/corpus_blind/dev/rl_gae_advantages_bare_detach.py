# corpus: vectorized A2C get_losses() computes GAE advantages and calls advantages.detach() as a bare statement, so the actor loss also trains the critic
# source: https://github.com/Farama-Foundation/Gymnasium/issues/1494
import torch
import torch.nn as nn


class A2C(nn.Module):
    def __init__(self, n_features, n_actions, n_envs, critic_lr=5e-3, actor_lr=1e-3):
        super().__init__()
        self.n_envs = n_envs
        self.critic = nn.Sequential(nn.Linear(n_features, 32), nn.ReLU(), nn.Linear(32, 1))
        self.actor = nn.Sequential(nn.Linear(n_features, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.optim = torch.optim.RMSprop([
            {"params": self.critic.parameters(), "lr": critic_lr},
            {"params": self.actor.parameters(), "lr": actor_lr},
        ])

    def forward(self, x):
        return self.critic(x), self.actor(x)

    def select_action(self, x):
        state_values, action_logits = self.forward(x)
        dist = torch.distributions.Categorical(logits=action_logits)
        actions = dist.sample()
        return actions, dist.log_prob(actions), state_values, dist.entropy()

    def get_losses(self, rewards, action_log_probs, value_preds, entropy, masks, gamma, lam, ent_coef):
        T = len(rewards)
        advantages = torch.zeros(T, self.n_envs)
        gae = 0.0
        for t in reversed(range(T - 1)):
            td_error = rewards[t] + gamma * masks[t] * value_preds[t + 1] - value_preds[t]
            gae = td_error + gamma * lam * masks[t] * gae
            advantages[t] = gae
        advantages.detach()  # expect: GG112
        critic_loss = advantages.pow(2).mean()
        actor_loss = -(advantages * action_log_probs).mean() - ent_coef * entropy.mean()  # also: GG112
        return critic_loss, actor_loss

    def update_parameters(self, critic_loss, actor_loss):
        self.optim.zero_grad()
        (critic_loss + actor_loss).backward()
        self.optim.step()


def rollout(agent, n_steps, n_envs, n_features):
    ep_value_preds = torch.zeros(n_steps, n_envs)
    ep_rewards = torch.zeros(n_steps, n_envs)
    ep_action_log_probs = torch.zeros(n_steps, n_envs)
    masks = torch.ones(n_steps, n_envs)
    entropies = []
    states = torch.randn(n_envs, n_features)
    for step in range(n_steps):
        actions, action_log_probs, state_value_preds, entropy = agent.select_action(states)
        states = torch.randn(n_envs, n_features)
        ep_value_preds[step] = state_value_preds.squeeze(-1)
        ep_rewards[step] = (actions == 1).float()
        ep_action_log_probs[step] = action_log_probs
        entropies.append(entropy)
    return ep_rewards, ep_action_log_probs, ep_value_preds, torch.stack(entropies), masks


def main():
    torch.manual_seed(0)
    n_envs, n_features, n_actions = 4, 6, 2
    agent = A2C(n_features, n_actions, n_envs)
    for update in range(3):
        rewards, log_probs, values, entropy, masks = rollout(agent, 8, n_envs, n_features)
        critic_loss, actor_loss = agent.get_losses(rewards, log_probs, values, entropy, masks,
                                                   gamma=0.99, lam=0.95, ent_coef=0.01)
        agent.update_parameters(critic_loss, actor_loss)
    return agent


if __name__ == "__main__":
    agent = main()
    # ground truth: the actor loss alone still reaches the critic's parameters
    rewards, log_probs, values, entropy, masks = rollout(agent, 8, 4, 6)
    _, actor_loss = agent.get_losses(rewards, log_probs, values, entropy, masks, 0.99, 0.95, 0.01)
    grads = torch.autograd.grad(actor_loss, list(agent.critic.parameters()), allow_unused=True)
    assert all(g is not None for g in grads)
    assert any(g.abs().sum() > 0 for g in grads)
