# corpus: REINFORCE class whose update_parameters() accumulates loss = loss - ... over the episode's steps (with a carried return R) and backprops once per episode
# source: https://github.com/chingyaoc/pytorch-REINFORCE/issues/1
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils as utils


class Policy(nn.Module):
    def __init__(self, hidden_size, num_inputs, num_outputs):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs, hidden_size)
        self.linear2 = nn.Linear(hidden_size, num_outputs)

    def forward(self, inputs):
        return F.softmax(self.linear2(F.relu(self.linear1(inputs))), dim=-1)


class REINFORCE:
    def __init__(self, hidden_size, num_inputs, num_actions, lr=1e-3):
        self.model = Policy(hidden_size, num_inputs, num_actions)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.model.train()

    def select_action(self, state):
        probs = self.model(state)
        action = probs.multinomial(1).detach()
        prob = probs[:, action[0, 0]].view(1, -1)
        log_prob = prob.log()
        entropy = -(probs * probs.log()).sum()
        return action[0], log_prob, entropy

    def update_parameters(self, rewards, log_probs, entropies, gamma):
        R = torch.zeros(1, 1)
        loss = 0
        for i in reversed(range(len(rewards))):
            R = gamma * R + rewards[i]
            loss = loss - (log_probs[i] * R.expand_as(log_probs[i])).sum() - (0.0001 * entropies[i]).sum()
        loss = loss / len(rewards)
        self.optimizer.zero_grad()
        loss.backward()
        utils.clip_grad_norm_(self.model.parameters(), 40)
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    agent = REINFORCE(hidden_size=32, num_inputs=4, num_actions=2)
    reward_history = []
    losses = []
    for i_episode in range(3):
        state = torch.randn(1, 4)
        entropies = []
        log_probs = []
        rewards = []
        for t in range(10):
            action, log_prob, entropy = agent.select_action(state)
            state = torch.randn(1, 4)
            reward = 1.0 if action.item() == 1 else 0.0
            entropies.append(entropy)
            log_probs.append(log_prob)
            rewards.append(reward)
        losses.append(agent.update_parameters(rewards, log_probs, entropies, 0.99))
        reward_history.append(sum(rewards))
    return agent, losses


if __name__ == "__main__":
    agent, losses = main()
    assert all(p.grad is not None for p in agent.model.parameters())
    assert all(isinstance(l, float) and math.isfinite(l) for l in losses)
