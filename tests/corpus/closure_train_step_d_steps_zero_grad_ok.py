# corpus: the same train step closure zeroes the critic gradients before each critic backward (correct)
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_train_step(gen, critic, opt_g, opt_c, n_critic):
    def train_step(real):
        opt_c.zero_grad()
        for _ in range(n_critic):
            fake = gen(torch.randn(real.shape[0], 4)).detach()
            loss_c = critic(fake).mean() - critic(real).mean()
            opt_c.zero_grad()
            loss_c.backward()
            opt_c.step()
        opt_g.zero_grad()
        loss_g = -critic(gen(torch.randn(real.shape[0], 4))).mean()
        loss_g.backward()
        opt_g.step()
        return loss_c.item(), loss_g.item()

    return train_step


gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
critic = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
step = make_train_step(
    gen, critic, torch.optim.RMSprop(gen.parameters(), lr=5e-5), torch.optim.RMSprop(critic.parameters(), lr=5e-5), 3
)
for _ in range(2):
    step(torch.randn(8, 2))
