# corpus: Webots-tutorial PPOAgent whose trainStep backpropagates action_loss (actor net) and value_loss (critic net) one after the other without retain_graph; the two graphs share no forward, and the advantage is delta.detach().
# source: https://github.com/aidudezzz/deepbots-tutorials/issues/18
from collections import namedtuple

import numpy as np
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch import from_numpy, no_grad, tensor, clamp, manual_seed
from torch import float as torch_float
from torch import long as torch_long
from torch import min as torch_min
from torch.distributions import Categorical
from torch.utils.data.sampler import BatchSampler, SubsetRandomSampler

Transition = namedtuple('Transition', ['state', 'action', 'a_log_prob', 'reward', 'next_state'])


class PPOAgent:
    def __init__(self, numberOfInputs, numberOfActorOutputs, clip_param=0.2, max_grad_norm=0.5, ppo_update_iters=2,
                 batch_size=4, gamma=0.99, actor_lr=0.001, critic_lr=0.003, seed=None):
        if seed is not None:
            manual_seed(seed)
        self.clip_param = clip_param
        self.max_grad_norm = max_grad_norm
        self.ppo_update_iters = ppo_update_iters
        self.batch_size = batch_size
        self.gamma = gamma
        self.actor_net = Actor(numberOfInputs, numberOfActorOutputs)
        self.critic_net = Critic(numberOfInputs)
        self.actor_optimizer = optim.Adam(self.actor_net.parameters(), actor_lr)
        self.critic_net_optimizer = optim.Adam(self.critic_net.parameters(), critic_lr)
        self.buffer = []

    def work(self, agentInput, type_="simple"):
        agentInput = from_numpy(np.array(agentInput)).float().unsqueeze(0)
        with no_grad():
            action_prob = self.actor_net(agentInput)
        if type_ == "simple":
            return [action_prob[0][i].data.tolist() for i in range(len(action_prob[0]))]
        elif type_ == "selectAction":
            c = Categorical(action_prob)
            action = c.sample()
            return action.item(), action_prob[:, action.item()].item()
        elif type_ == "selectActionMax":
            return np.argmax(action_prob).item(), 1.0
        raise Exception("Wrong type in agent.work(), returning input")

    def storeTransition(self, transition):
        self.buffer.append(transition)

    def trainStep(self, batchSize=None):
        if batchSize is None:
            if len(self.buffer) < self.batch_size:
                return
            batchSize = self.batch_size

        state = tensor(np.array([t.state for t in self.buffer]), dtype=torch_float)
        action = tensor([t.action for t in self.buffer], dtype=torch_long).view(-1, 1)
        reward = [t.reward for t in self.buffer]
        old_action_log_prob = tensor([t.a_log_prob for t in self.buffer], dtype=torch_float).view(-1, 1)

        R = 0
        Gt = []
        for r in reward[::-1]:
            R = r + self.gamma * R
            Gt.insert(0, R)
        Gt = tensor(Gt, dtype=torch_float)

        for i in range(self.ppo_update_iters):
            for index in BatchSampler(SubsetRandomSampler(range(len(self.buffer))), batchSize, False):
                Gt_index = Gt[index].view(-1, 1)
                V = self.critic_net(state[index])
                delta = Gt_index - V
                advantage = delta.detach()

                action_prob = self.actor_net(state[index]).gather(1, action[index])
                ratio = (action_prob / old_action_log_prob[index])
                surr1 = ratio * advantage
                surr2 = clamp(ratio, 1 - self.clip_param, 1 + self.clip_param) * advantage

                action_loss = -torch_min(surr1, surr2).mean()
                self.actor_optimizer.zero_grad()
                action_loss.backward()
                nn.utils.clip_grad_norm_(self.actor_net.parameters(), self.max_grad_norm)
                self.actor_optimizer.step()

                value_loss = F.mse_loss(Gt_index, V)
                self.critic_net_optimizer.zero_grad()
                value_loss.backward()
                nn.utils.clip_grad_norm_(self.critic_net.parameters(), self.max_grad_norm)
                self.critic_net_optimizer.step()

        del self.buffer[:]


class Actor(nn.Module):
    def __init__(self, numberOfInputs, numberOfOutputs):
        super(Actor, self).__init__()
        self.fc1 = nn.Linear(numberOfInputs, 10)
        self.fc2 = nn.Linear(10, 10)
        self.action_head = nn.Linear(10, numberOfOutputs)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.softmax(self.action_head(x), dim=1)


class Critic(nn.Module):
    def __init__(self, numberOfInputs):
        super(Critic, self).__init__()
        self.fc1 = nn.Linear(numberOfInputs, 10)
        self.fc2 = nn.Linear(10, 10)
        self.state_value = nn.Linear(10, 1)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.state_value(x)


def main():
    np.random.seed(0)
    agent = PPOAgent(numberOfInputs=4, numberOfActorOutputs=2, seed=0)
    for episode in range(3):
        observation = np.random.randn(4).astype(np.float32)
        for step in range(8):
            selectedAction, actionProb = agent.work(observation, type_="selectAction")
            newObservation = np.random.randn(4).astype(np.float32)
            reward = float(np.random.rand())
            agent.storeTransition(Transition(observation, selectedAction, actionProb, reward, newObservation))
            observation = newObservation
        agent.trainStep(batchSize=step + 1)
    assert all(p.grad is not None for p in agent.actor_net.parameters())
    assert all(p.grad is not None for p in agent.critic_net.parameters())
    print("ok: actor and critic grads populated")


if __name__ == '__main__':
    main()
