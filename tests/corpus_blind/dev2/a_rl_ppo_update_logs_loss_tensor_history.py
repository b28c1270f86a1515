# corpus: PPO (ppo_continuous) agent with added logging variables appends the graph-carrying loss.mean() of every K-epoch step to self.loss_history, so RAM grows after every update although clear_memory() is called
# source: https://github.com/nikhilbarhate99/PPO-PyTorch/issues/16
import torch
import torch.nn as nn
from torch.distributions import MultivariateNormal


class Memory:
    def __init__(self):
        self.actions, self.states, self.logprobs, self.rewards, self.is_terminals = [], [], [], [], []

    def clear_memory(self):
        del self.actions[:], self.states[:], self.logprobs[:], self.rewards[:], self.is_terminals[:]


class ActorCritic(nn.Module):
    def __init__(self, state_dim, action_dim, action_std):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(state_dim, 32), nn.Tanh(), nn.Linear(32, action_dim), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(state_dim, 32), nn.Tanh(), nn.Linear(32, 1))
        self.action_var = torch.full((action_dim,), action_std * action_std)

    @torch.no_grad()
    def act(self, state, memory):
        action_mean = self.actor(state)
        dist = MultivariateNormal(action_mean, torch.diag(self.action_var))
        action = dist.sample()
        memory.states.append(state)
        memory.actions.append(action)
        memory.logprobs.append(dist.log_prob(action))
        return action.detach()

    def evaluate(self, state, action):
        action_mean = self.actor(state)
        dist = MultivariateNormal(action_mean, torch.diag_embed(self.action_var.expand_as(action_mean)))
        return dist.log_prob(action), torch.squeeze(self.critic(state)), dist.entropy()


class PPO:
    def __init__(self, state_dim, action_dim, action_std=0.5, lr=3e-4, gamma=0.99, K_epochs=4, eps_clip=0.2):
        self.gamma, self.eps_clip, self.K_epochs = gamma, eps_clip, K_epochs
        self.policy = ActorCritic(state_dim, action_dim, action_std)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.policy_old = ActorCritic(state_dim, action_dim, action_std)
        self.policy_old.load_state_dict(self.policy.state_dict())
        self.MseLoss = nn.MSELoss()
        self.loss_history = []

    def update(self, memory):
        rewards, discounted_reward = [], 0
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
            ratios = torch.exp(logprobs - old_logprobs)
            advantages = rewards - state_values.detach()
            surr1 = ratios * advantages
            surr2 = torch.clamp(ratios, 1 - self.eps_clip, 1 + self.eps_clip) * advantages
            loss = -torch.min(surr1, surr2) + 0.5 * self.MseLoss(state_values, rewards) - 0.01 * dist_entropy
            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()
            self.loss_history.append(loss.mean())  # expect: GG301
        self.policy_old.load_state_dict(self.policy.state_dict())


def main(max_episodes=3, max_timesteps=20, update_timestep=20):
    memory, ppo = Memory(), PPO(state_dim=4, action_dim=2)
    time_step = 0
    for i_episode in range(1, max_episodes + 1):
        state = torch.randn(4)
        for t in range(max_timesteps):
            time_step += 1
            action = ppo.policy_old.act(state, memory)
            state, reward, done = torch.randn(4), -float(action.pow(2).sum()), t == max_timesteps - 1
            memory.rewards.append(reward)
            memory.is_terminals.append(done)
            if time_step % update_timestep == 0:
                ppo.update(memory)
                memory.clear_memory()
        print(f"episode {i_episode}: logged {len(ppo.loss_history)} losses")
    return ppo


if __name__ == "__main__":
    torch.manual_seed(0)
    main()
