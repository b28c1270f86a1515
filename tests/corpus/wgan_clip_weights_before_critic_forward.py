# corpus: a WGAN critic step clips the critic's weights through .data before its forward pass, as the WGAN paper does (correct)
import torch
import torch.nn as nn


def critic_step(critic, optimizer, real, fake):
    for p in critic.parameters():
        p.data.clamp_(-0.01, 0.01)
    optimizer.zero_grad()
    loss = critic(fake).mean() - critic(real).mean()
    loss.backward()
    optimizer.step()
    return loss.item()


torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
for _ in range(3):
    critic_step(critic, optimizer, torch.randn(8, 6), torch.randn(8, 6))
