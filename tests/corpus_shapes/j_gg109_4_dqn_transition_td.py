# corpus: DQN update over a Transition namedtuple; td_loss() returns the per-transition squared TD error and update() backpropagates it unreduced
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: docs/rules/GG109.md (shape: 4, 2)
from collections import namedtuple

import torch
import torch.nn as nn

Transition = namedtuple("Transition", ["obs", "action", "reward", "next_obs", "done"])


def td_loss(q_net, target_net, batch, gamma=0.99):
    q = q_net(batch.obs).gather(1, batch.action[:, None]).squeeze(1)
    with torch.no_grad():
        next_q = target_net(batch.next_obs).max(1).values
        target = batch.reward + gamma * (1.0 - batch.done) * next_q
    return (q - target) ** 2


def update(q_net, target_net, opt, batch):
    loss = td_loss(q_net, target_net, batch)
    opt.zero_grad()
    loss.backward()  # expect: GG109
    opt.step()
    return loss.mean().item()


def main():
    torch.manual_seed(0)
    q_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    target_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    target_net.load_state_dict(q_net.state_dict())
    opt = torch.optim.Adam(q_net.parameters(), lr=1e-3)
    batch = Transition(
        obs=torch.randn(8, 4),
        action=torch.randint(0, 2, (8,)),
        reward=torch.randn(8),
        next_obs=torch.randn(8, 4),
        done=torch.zeros(8),
    )
    print(update(q_net, target_net, opt, batch))


if __name__ == "__main__":
    main()
