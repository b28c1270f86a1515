# corpus: DQN update with a target network; the bootstrap target is detached and the target net synced periodically
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

q_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
target_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
target_net.load_state_dict(q_net.state_dict())
optimizer = torch.optim.Adam(q_net.parameters(), lr=1e-3)
gamma = 0.99

for step in range(6):
    states = torch.randn(16, 4)
    actions = torch.randint(0, 2, (16, 1))
    rewards = torch.randn(16)
    next_states = torch.randn(16, 4)
    dones = (torch.rand(16) < 0.1).float()
    q = q_net(states).gather(1, actions).squeeze(1)
    next_q = target_net(next_states).max(1)[0].detach()
    target = rewards + gamma * next_q * (1 - dones)
    loss = F.smooth_l1_loss(q, target)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_value_(q_net.parameters(), 1.0)
    optimizer.step()
    if step % 3 == 2:
        target_net.load_state_dict(q_net.state_dict())
    print(step, loss.item())
