# corpus: a REINFORCE fine-tuner turns each sampled token's log-probability into a float with .item() before accumulating it, with the reward from a helper called with **kwargs; rl_loss is a float and has no backward
# raises: AttributeError: 'float' object has no attribute 'backward'
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_reward(sample, scale=1.0):
    return float(len(sample)) * scale


class Reinforce:
    def __init__(self, policy, reward_fn):
        self.policy = policy
        self.reward_fn = reward_fn
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)

    def update(self, states, **kwargs):
        rl_loss = 0
        self.optimizer.zero_grad()
        for state in states:
            log_probs = F.log_softmax(self.policy(state), dim=-1)
            reward = self.reward_fn([0, 1], **kwargs)
            rl_loss -= log_probs[0, 1].item() * reward
        rl_loss = rl_loss / len(states)
        rl_loss.backward()  # expect: GG106
        self.optimizer.step()


torch.manual_seed(0)
agent = Reinforce(nn.Linear(4, 3), get_reward)
agent.update([torch.randn(1, 4) for _ in range(3)])
