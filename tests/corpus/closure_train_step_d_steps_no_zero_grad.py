# corpus: a factory returns a train step closure over the models and optimizers; its critic loop zeroes gradients once, before the loop, so every later critic step re-applies the earlier ones
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_train_step(gen, critic, opt_g, opt_c, n_critic):
    def train_step(real):
        opt_c.zero_grad()
        for _ in range(n_critic):
            fake = gen(torch.randn(real.shape[0], 4)).detach()
            loss_c = critic(fake).mean() - critic(real).mean()
            loss_c.backward()  # expect: GG201
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
