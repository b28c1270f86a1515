# corpus: WGAN-GP with a correct gradient penalty (create_graph=True) and n_critic critic steps per generator step
import torch
import torch.nn as nn

torch.manual_seed(0)

critic = nn.Sequential(nn.Linear(4, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
gen = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 4))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.0, 0.9))


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(mixed)
    grads = torch.autograd.grad(scores, mixed, grad_outputs=torch.ones_like(scores), create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


for it in range(2):
    for _ in range(3):
        real = torch.randn(8, 4)
        fake = gen(torch.randn(8, 2)).detach()
        loss_c = critic(fake).mean() - critic(real).mean() + 10.0 * gradient_penalty(critic, real, fake)
        opt_c.zero_grad()
        loss_c.backward()
        opt_c.step()
    loss_g = -critic(gen(torch.randn(8, 2))).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    print(it, loss_c.item(), loss_g.item())
