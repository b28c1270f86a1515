# corpus: PPO with a Memory object and K epochs per update; rollout log-probs stored from policy_old under no_grad, stacked and detached once, new log-probs recomputed via evaluate() each epoch, memory cleared after update
# source: https://github.com/nikhilbarhate99/PPO-PyTorch/issues/18
import torch
import torch.nn as nn
from torch.distributions import Categorical


class Memory:
    def __init__(self):
        self.actions = []
        self.states = []
        self.logprobs = []
        self.rewards = []
        self.is_terminals = []

    def clear_memory(self):
        del self.actions[:]
        del self.states[:]
        del self.logprobs[:]
        del self.rewards[:]
        del self.is_terminals[:]


class ActorCritic(nn.Module):
    def __init__(self, state_dim, action_dim, n_latent_var):
        super().__init__()
        self.action_layer = nn.Sequential(
            nn.Linear(state_dim, n_latent_var), nn.Tanh(),
            nn.Linear(n_latent_var, action_dim), nn.Softmax(dim=-1))
        self.value_layer = nn.Sequential(
            nn.Linear(state_dim, n_latent_var), nn.Tanh(), nn.Linear(n_latent_var, 1))

    def act(self, state, memory):
        action_probs = self.action_layer(state)
        dist = Categorical(action_probs)
        action = dist.sample()
        memory.states.append(state)
        memory.actions.append(action)
        memory.logprobs.append(dist.log_prob(action))
        return action.item()

    def evaluate(self, state, action):
        action_probs = self.action_layer(state)
        dist = Categorical(action_probs)
        return dist.log_prob(action), torch.squeeze(self.value_layer(state)), dist.entropy()


class PPO:
    def __init__(self, state_dim, action_dim, n_latent_var, lr, gamma, K_epochs, eps_clip):
        self.gamma = gamma
        self.eps_clip = eps_clip
        self.K_epochs = K_epochs
        self.policy = ActorCritic(state_dim, action_dim, n_latent_var)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.policy_old = ActorCritic(state_dim, action_dim, n_latent_var)
        self.policy_old.load_state_dict(self.policy.state_dict())
        self.MseLoss = nn.MSELoss()

    def select_action(self, state, memory):
        with torch.no_grad():
            return self.policy_old.act(state, memory)

    def update(self, memory):
        rewards = []
        discounted_reward = 0
        for reward, is_terminal in zip(reversed(memory.rewards), reversed(memory.is_terminals)):
            if is_terminal:
                discounted_reward = 0
            discounted_reward = reward + self.gamma * discounted_reward
            rewards.insert(0, discounted_reward)
        rewards = torch.tensor(rewards, dtype=torch.float32)
        rewards = (rewards - rewards.mean()) / (rewards.std() + 1e-5)

        old_states = torch.stack(memory.states).detach()
        old_actions = torch.stack(memory.actions).detach()
        old_logprobs = torch.stack(memory.logprobs).detach()

        for _ in range(self.K_epochs):
            logprobs, state_values, dist_entropy = self.policy.evaluate(old_states, old_actions)
            ratios = torch.exp(logprobs - old_logprobs.detach())
            advantages = rewards - state_values.detach()
            surr1 = ratios * advantages
            surr2 = torch.clamp(ratios, 1 - self.eps_clip, 1 + self.eps_clip) * advantages
            loss = -torch.min(surr1, surr2) + 0.5 * self.MseLoss(state_values, rewards) - 0.01 * dist_entropy
            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()

        self.policy_old.load_state_dict(self.policy.state_dict())
        return old_logprobs


def main():
    torch.manual_seed(0)
    memory = Memory()
    ppo = PPO(state_dim=4, action_dim=2, n_latent_var=32, lr=2e-3, gamma=0.99, K_epochs=4, eps_clip=0.2)
    timestep = 0
    update_timestep = 12
    last_old_logprobs = None
    for i_episode in range(3):
        state = torch.randn(4)
        for t in range(8):
            timestep += 1
            action = ppo.select_action(state, memory)
            state = torch.randn(4)
            memory.rewards.append(float(action))
            memory.is_terminals.append(t == 7)
            if timestep % update_timestep == 0:
                last_old_logprobs = ppo.update(memory)
                memory.clear_memory()
                timestep = 0
    return ppo, memory, last_old_logprobs


if __name__ == "__main__":
    ppo, memory, old_logprobs = main()
    assert all(p.grad is not None for p in ppo.policy.parameters())
    assert old_logprobs is not None and old_logprobs.grad_fn is None
    assert all(p.grad is None for p in ppo.policy_old.parameters())
