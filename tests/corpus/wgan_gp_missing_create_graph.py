# corpus: WGAN-GP critic update whose gradient penalty is computed without create_graph=True
import torch
import torch.nn as nn

torch.manual_seed(0)

critic = nn.Sequential(nn.Linear(4, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
generator = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 4))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.0, 0.9))
lambda_gp = 10.0

for it in range(3):
    real = torch.randn(8, 4)
    fake = generator(torch.randn(8, 2)).detach()
    alpha = torch.rand(8, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interp = critic(interp)
    grads = torch.autograd.grad(outputs=d_interp, inputs=interp, grad_outputs=torch.ones_like(d_interp))[0]  # expect: GG202
    gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    c_loss = critic(fake).mean() - critic(real).mean() + lambda_gp * gp
    opt_c.zero_grad()
    c_loss.backward()
    opt_c.step()

    opt_g.zero_grad()
    g_loss = -critic(generator(torch.randn(8, 2))).mean()
    g_loss.backward()
    opt_g.step()
    print(it, c_loss.item(), gp.item(), g_loss.item())
assert not gp.requires_grad  # ground truth: the penalty carries no gradient
