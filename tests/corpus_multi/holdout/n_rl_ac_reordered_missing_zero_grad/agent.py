import numpy as np
import torch
import torch.nn.functional as F

from nets import PolicyNet, ValueNet


class ActorCritic:
    def __init__(self, state_dim, hidden_dim, action_dim, actor_lr, critic_lr, gamma):
        self.actor = PolicyNet(state_dim, hidden_dim, action_dim)
        self.critic = ValueNet(state_dim, hidden_dim)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=actor_lr)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=critic_lr)
        self.gamma = gamma

    def take_action(self, state):
        state = torch.tensor(np.array([state]), dtype=torch.float)
        with torch.no_grad():
            probs = self.actor(state)
        action_dist = torch.distributions.Categorical(probs)
        return action_dist.sample().item()

    def update(self, transition_dict):
        states = torch.tensor(np.array(transition_dict["states"]), dtype=torch.float)
        actions = torch.tensor(transition_dict["actions"]).view(-1, 1)
        rewards = torch.tensor(transition_dict["rewards"], dtype=torch.float).view(-1, 1)
        next_states = torch.tensor(np.array(transition_dict["next_states"]), dtype=torch.float)
        dones = torch.tensor(transition_dict["dones"], dtype=torch.float).view(-1, 1)

        # update the critic
        td_target = rewards + self.gamma * self.critic(next_states) * (1 - dones)
        critic_loss = torch.mean(F.mse_loss(self.critic(states), td_target.detach()))
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()

        # update the actor (grouped after the critic for readability)
        td_delta = td_target - self.critic(states)
        log_probs = torch.log(self.actor(states).gather(1, actions))
        actor_loss = torch.mean(-log_probs * td_delta.detach())
        actor_loss.backward()  # expect: GG201
        self.actor_optimizer.step()  # also: GG201
        return actor_loss.item(), critic_loss.item()
