# corpus: REINFORCE-style update where the per-step policy loss vector is backpropagated without summing
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)

policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
gamma = 0.99

for episode in range(2):
    states = torch.randn(6, 4)
    logits = policy(states)
    dist = Categorical(logits=logits)
    actions = dist.sample()
    rewards = torch.randn(6)
    returns = torch.zeros(6)
    running = 0.0
    for t in reversed(range(6)):
        running = rewards[t].item() + gamma * running
        returns[t] = running
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    policy_loss = -dist.log_prob(actions) * returns
    optimizer.zero_grad()
    policy_loss.backward()  # expect: GG109
    optimizer.step()
    print(episode, policy_loss.sum().item())
