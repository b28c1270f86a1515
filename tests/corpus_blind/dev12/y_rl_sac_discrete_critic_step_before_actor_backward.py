# corpus: SAC-Discrete agent (Deep-RL-Algorithms style): learn() builds the critic losses and the actor loss (which goes through critic_local) first, then update_all_parameters() steps the critic optimizer before backpropagating the actor loss, whose saved critic weights were updated in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/p-christ/Deep-Reinforcement-Learning-Algorithms-with-PyTorch/issues/56
import random
from collections import deque, namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical
from torch.optim import Adam


class Config:
    def __init__(self):
        self.seed = 1
        self.hyperparameters = {
            "Actor": {"learning_rate": 3e-4, "gradient_clipping_norm": 5.0, "hidden": 16},
            "Critic": {"learning_rate": 3e-4, "gradient_clipping_norm": 5.0, "hidden": 16,
                       "buffer_size": 1000, "tau": 0.005},
            "batch_size": 16,
            "discount_rate": 0.99,
            "min_steps_before_learning": 20,
            "automatically_tune_entropy_hyperparameter": True,
        }


class Replay_Buffer:
    def __init__(self, buffer_size, batch_size, seed):
        self.memory = deque(maxlen=buffer_size)
        self.batch_size = batch_size
        self.experience = namedtuple("Experience", ["state", "action", "reward", "next_state", "done"])
        random.seed(seed)

    def add_experience(self, state, action, reward, next_state, done):
        self.memory.append(self.experience(state, action, reward, next_state, done))

    def sample(self):
        experiences = random.sample(self.memory, k=self.batch_size)
        states = torch.from_numpy(np.vstack([e.state for e in experiences])).float()
        actions = torch.from_numpy(np.vstack([e.action for e in experiences])).float()
        rewards = torch.from_numpy(np.vstack([e.reward for e in experiences])).float()
        next_states = torch.from_numpy(np.vstack([e.next_state for e in experiences])).float()
        dones = torch.from_numpy(np.vstack([int(e.done) for e in experiences])).float()
        return states, actions, rewards, next_states, dones

    def __len__(self):
        return len(self.memory)


class Base_Agent:
    def __init__(self, config):
        self.config = config
        self.hyperparameters = config.hyperparameters
        self.state_size = 4
        self.action_size = 3
        self.device = torch.device("cpu")
        self.global_step_number = 0

    def create_NN(self, input_dim, output_dim, key_to_use, final_softmax=False):
        hidden = self.hyperparameters[key_to_use]["hidden"]
        layers = [nn.Linear(input_dim, hidden), nn.ReLU(), nn.Linear(hidden, output_dim)]
        if final_softmax:
            layers.append(nn.Softmax(dim=-1))
        return nn.Sequential(*layers)

    def take_optimisation_step(self, optimizer, network, loss, clipping_norm=None, retain_graph=False):
        optimizer.zero_grad()
        loss.backward(retain_graph=retain_graph)  # also: GG111
        if clipping_norm is not None:
            torch.nn.utils.clip_grad_norm_(network.parameters(), clipping_norm)
        optimizer.step()

    def soft_update_of_target_network(self, local_model, target_model, tau):
        for target_param, local_param in zip(target_model.parameters(), local_model.parameters()):
            target_param.data.copy_(tau * local_param.data + (1.0 - tau) * target_param.data)

    @staticmethod
    def copy_model_over(from_model, to_model):
        for to_model, from_model in zip(to_model.parameters(), from_model.parameters()):
            to_model.data.copy_(from_model.data.clone())


class SAC_Discrete(Base_Agent):
    def __init__(self, config):
        Base_Agent.__init__(self, config)
        self.critic_local = self.create_NN(self.state_size, self.action_size, "Critic")
        self.critic_local_2 = self.create_NN(self.state_size, self.action_size, "Critic")
        self.critic_optimizer = Adam(self.critic_local.parameters(), lr=self.hyperparameters["Critic"]["learning_rate"])
        self.critic_optimizer_2 = Adam(self.critic_local_2.parameters(), lr=self.hyperparameters["Critic"]["learning_rate"])
        self.critic_target = self.create_NN(self.state_size, self.action_size, "Critic")
        self.critic_target_2 = self.create_NN(self.state_size, self.action_size, "Critic")
        Base_Agent.copy_model_over(self.critic_local, self.critic_target)
        Base_Agent.copy_model_over(self.critic_local_2, self.critic_target_2)
        self.memory = Replay_Buffer(self.hyperparameters["Critic"]["buffer_size"],
                                    self.hyperparameters["batch_size"], config.seed)
        self.actor_local = self.create_NN(self.state_size, self.action_size, "Actor", final_softmax=True)
        self.actor_optimizer = Adam(self.actor_local.parameters(), lr=self.hyperparameters["Actor"]["learning_rate"])
        self.automatic_entropy_tuning = self.hyperparameters["automatically_tune_entropy_hyperparameter"]
        if self.automatic_entropy_tuning:
            self.target_entropy = -np.log((1.0 / self.action_size)) * 0.98
            self.log_alpha = torch.zeros(1, requires_grad=True)
            self.alpha = self.log_alpha.exp()
            self.alpha_optim = Adam([self.log_alpha], lr=self.hyperparameters["Actor"]["learning_rate"])

    def produce_action_and_action_info(self, state):
        action_probabilities = self.actor_local(state)
        max_probability_action = torch.argmax(action_probabilities, dim=-1)
        action_distribution = Categorical(action_probabilities)
        action = action_distribution.sample().cpu()
        z = action_probabilities == 0.0
        z = z.float() * 1e-8
        log_action_probabilities = torch.log(action_probabilities + z)
        return action, (action_probabilities, log_action_probabilities), max_probability_action

    def calculate_critic_losses(self, state_batch, action_batch, reward_batch, next_state_batch, mask_batch):
        with torch.no_grad():
            next_state_action, (action_probabilities, log_action_probabilities), _ = \
                self.produce_action_and_action_info(next_state_batch)
            qf1_next_target = self.critic_target(next_state_batch)
            qf2_next_target = self.critic_target_2(next_state_batch)
            min_qf_next_target = action_probabilities * (
                torch.min(qf1_next_target, qf2_next_target) - self.alpha * log_action_probabilities)
            min_qf_next_target = min_qf_next_target.sum(dim=1).unsqueeze(-1)
            next_q_value = reward_batch + (1.0 - mask_batch) * self.hyperparameters["discount_rate"] * min_qf_next_target
        qf1 = self.critic_local(state_batch).gather(1, action_batch.long())
        qf2 = self.critic_local_2(state_batch).gather(1, action_batch.long())
        qf1_loss = F.mse_loss(qf1, next_q_value)
        qf2_loss = F.mse_loss(qf2, next_q_value)
        return qf1_loss, qf2_loss

    def calculate_actor_loss(self, state_batch):
        action, (action_probabilities, log_action_probabilities), _ = self.produce_action_and_action_info(state_batch)
        qf1_pi = self.critic_local(state_batch)
        qf2_pi = self.critic_local_2(state_batch)
        min_qf_pi = torch.min(qf1_pi, qf2_pi)
        inside_term = self.alpha * log_action_probabilities - min_qf_pi
        policy_loss = (action_probabilities * inside_term).sum(dim=1).mean()
        log_action_probabilities = torch.sum(log_action_probabilities * action_probabilities, dim=1)
        return policy_loss, log_action_probabilities

    def calculate_entropy_tuning_loss(self, log_pi):
        alpha_loss = -(self.log_alpha * (log_pi + self.target_entropy).detach()).mean()
        return alpha_loss

    def learn(self):
        state_batch, action_batch, reward_batch, next_state_batch, mask_batch = self.memory.sample()
        qf1_loss, qf2_loss = self.calculate_critic_losses(state_batch, action_batch, reward_batch,
                                                          next_state_batch, mask_batch)
        policy_loss, log_pi = self.calculate_actor_loss(state_batch)  # also: GG111
        alpha_loss = self.calculate_entropy_tuning_loss(log_pi) if self.automatic_entropy_tuning else None
        self.update_all_parameters(qf1_loss, qf2_loss, policy_loss, alpha_loss)

    def update_all_parameters(self, critic_loss_1, critic_loss_2, actor_loss, alpha_loss):
        critic_clip = self.hyperparameters["Critic"]["gradient_clipping_norm"]
        actor_clip = self.hyperparameters["Actor"]["gradient_clipping_norm"]
        self.take_optimisation_step(self.critic_optimizer, self.critic_local, critic_loss_1, critic_clip)  # expect: GG111
        self.take_optimisation_step(self.critic_optimizer_2, self.critic_local_2, critic_loss_2, critic_clip)
        self.take_optimisation_step(self.actor_optimizer, self.actor_local, actor_loss, actor_clip)  # also: GG111
        self.soft_update_of_target_network(self.critic_local, self.critic_target,
                                           self.hyperparameters["Critic"]["tau"])
        self.soft_update_of_target_network(self.critic_local_2, self.critic_target_2,
                                           self.hyperparameters["Critic"]["tau"])
        if alpha_loss is not None:
            self.take_optimisation_step(self.alpha_optim, None, alpha_loss, None)
            self.alpha = self.log_alpha.exp().detach()

    def pick_action(self, state):
        if self.global_step_number < self.hyperparameters["min_steps_before_learning"]:
            return random.randrange(self.action_size)
        with torch.no_grad():
            action, _, _ = self.produce_action_and_action_info(torch.from_numpy(state).float().unsqueeze(0))
        return int(action.item())


class ToyEnv:
    def __init__(self):
        self.state = np.zeros(4, dtype=np.float32)
        self.t = 0

    def reset(self):
        self.t = 0
        self.state = np.random.randn(4).astype(np.float32)
        return self.state

    def step(self, action):
        self.t += 1
        self.state = (self.state + 0.1 * (action - 1)).astype(np.float32)
        reward = 1.0 if abs(self.state[0]) < 1.0 else 0.0
        return self.state, reward, self.t >= 10


def main():
    random.seed(1)
    np.random.seed(1)
    torch.manual_seed(1)
    agent = SAC_Discrete(Config())
    env = ToyEnv()
    for episode in range(5):
        state = env.reset()
        done = False
        while not done:
            action = agent.pick_action(state)
            next_state, reward, done = env.step(action)
            agent.memory.add_experience(state, action, reward, next_state, done)
            state = next_state
            agent.global_step_number += 1
            if agent.global_step_number > agent.hyperparameters["min_steps_before_learning"]:
                agent.learn()
        print("episode", episode)


if __name__ == "__main__":
    main()
