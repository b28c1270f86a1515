# corpus: Hands-on-RL ActorCritic.update reorganised into a critic block and an actor block; the actor block lost actor_optimizer.zero_grad(), so policy gradients from every episode pile up in the actor parameters.
# source: https://github.com/boyu-ai/Hands-on-RL/issues/92
import numpy as np
import torch
import torch.nn.functional as F


class PolicyNet(torch.nn.Module):
    def __init__(self, state_dim, hidden_dim, action_dim):
        super().__init__()
        self.fc1 = torch.nn.Linear(state_dim, hidden_dim)
        self.fc2 = torch.nn.Linear(hidden_dim, action_dim)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=1)


class ValueNet(torch.nn.Module):
    def __init__(self, state_dim, hidden_dim):
        super().__init__()
        self.fc1 = torch.nn.Linear(state_dim, hidden_dim)
        self.fc2 = torch.nn.Linear(hidden_dim, 1)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return self.fc2(x)


class ActorCritic:
    def __init__(self, state_dim, hidden_dim, action_dim, actor_lr, critic_lr, gamma, device):
        self.actor = PolicyNet(state_dim, hidden_dim, action_dim).to(device)
        self.critic = ValueNet(state_dim, hidden_dim).to(device)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=actor_lr)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=critic_lr)
        self.gamma = gamma
        self.device = device

    def take_action(self, state):
        state = torch.tensor(np.array([state]), dtype=torch.float).to(self.device)
        probs = self.actor(state)
        action_dist = torch.distributions.Categorical(probs)
        return action_dist.sample().item()

    def update(self, transition_dict):
        states = torch.tensor(np.array(transition_dict['states']), dtype=torch.float).to(self.device)
        actions = torch.tensor(transition_dict['actions']).view(-1, 1).to(self.device)
        rewards = torch.tensor(transition_dict['rewards'], dtype=torch.float).view(-1, 1).to(self.device)
        next_states = torch.tensor(np.array(transition_dict['next_states']), dtype=torch.float).to(self.device)
        dones = torch.tensor(transition_dict['dones'], dtype=torch.float).view(-1, 1).to(self.device)

        # update the critic network
        td_target = rewards + self.gamma * self.critic(next_states) * (1 - dones)
        critic_loss = torch.mean(F.mse_loss(self.critic(states), td_target.detach()))
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()
        # update the actor network
        td_delta = td_target - self.critic(states)
        log_probs = torch.log(self.actor(states).gather(1, actions))
        actor_loss = torch.mean(-log_probs * td_delta.detach())
        actor_loss.backward()  # expect: GG201
        self.actor_optimizer.step()
        return actor_loss.item(), critic_loss.item()


class CartPoleLike:
    def __init__(self, state_dim=4, horizon=20):
        self.state_dim, self.horizon = state_dim, horizon

    def reset(self):
        self.t = 0
        return np.random.randn(self.state_dim).astype(np.float32)

    def step(self, action):
        self.t += 1
        next_state = np.random.randn(self.state_dim).astype(np.float32)
        return next_state, 1.0 if action == 1 else 0.0, self.t >= self.horizon, {}


def train_on_policy_agent(env, agent, num_episodes):
    return_list = []
    for i_episode in range(num_episodes):
        episode_return = 0
        transition_dict = {'states': [], 'actions': [], 'next_states': [], 'rewards': [], 'dones': []}
        state = env.reset()
        done = False
        while not done:
            action = agent.take_action(state)
            next_state, reward, done, _ = env.step(action)
            transition_dict['states'].append(state)
            transition_dict['actions'].append(action)
            transition_dict['next_states'].append(next_state)
            transition_dict['rewards'].append(reward)
            transition_dict['dones'].append(done)
            state = next_state
            episode_return += reward
        return_list.append(episode_return)
        a_loss, c_loss = agent.update(transition_dict)
        print(f"episode {i_episode} return {episode_return:.1f} actor {a_loss:.3f} critic {c_loss:.3f}")
    return return_list


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    env = CartPoleLike()
    agent = ActorCritic(state_dim=4, hidden_dim=32, action_dim=2, actor_lr=1e-3,
                        critic_lr=1e-2, gamma=0.98, device=torch.device("cpu"))
    train_on_policy_agent(env, agent, num_episodes=5)


if __name__ == "__main__":
    main()
