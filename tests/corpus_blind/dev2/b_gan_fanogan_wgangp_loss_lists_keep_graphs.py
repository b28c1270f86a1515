# corpus: f-AnoGAN WGAN-GP training function collects d_loss and g_loss tensors themselves into d_losses/g_losses for plotting, keeping every iteration's graph alive (GPU memory keeps growing)
# source: https://github.com/mulkong/f-AnoGAN_with_Pytorch/issues/3
import torch
import torch.autograd as autograd
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, latent_dim=8, img_dim=16):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2, inplace=True),
                                   nn.Linear(32, img_dim), nn.Tanh())

    def forward(self, z):
        return self.model(z)


class Discriminator(nn.Module):
    def __init__(self, img_dim=16):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(img_dim, 32), nn.LeakyReLU(0.2, inplace=True))
        self.last_layer = nn.Linear(32, 1)

    def forward(self, img):
        return self.last_layer(self.features(img))


def compute_gradient_penalty(D, real_samples, fake_samples, device):
    alpha = torch.rand(real_samples.size(0), 1, device=device)
    interpolates = (alpha * real_samples + (1 - alpha) * fake_samples).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1, device=device)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=fake,
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def train_wgangp(opt, generator, discriminator, dataloader, device, lambda_gp=10):
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt['lr'], betas=(0.5, 0.999))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt['lr'], betas=(0.5, 0.999))
    d_losses, g_losses = [], []
    batches_done = 0
    for epoch in range(opt['n_epochs']):
        for i, imgs in enumerate(dataloader):
            real_imgs = imgs.to(device)
            optimizer_D.zero_grad()
            z = torch.randn(imgs.shape[0], opt['latent_dim'], device=device)
            fake_imgs = generator(z)
            real_validity = discriminator(real_imgs)
            fake_validity = discriminator(fake_imgs.detach())
            gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data, device)
            d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gradient_penalty
            d_loss.backward()
            optimizer_D.step()
            d_losses.append(d_loss)  # expect: GG301

            optimizer_G.zero_grad()
            if i % opt['n_critic'] == 0:
                fake_imgs = generator(z)
                g_loss = -torch.mean(discriminator(fake_imgs))
                g_loss.backward()
                optimizer_G.step()
                g_losses.append(g_loss)  # expect: GG301
                batches_done += opt['n_critic']
        print(f"[Epoch {epoch}/{opt['n_epochs']}] [D loss: {d_losses[-1].item():.3f}] "
              f"[G loss: {g_losses[-1].item():.3f}]")
    return d_losses, g_losses


if __name__ == "__main__":
    torch.manual_seed(0)
    opt = {'lr': 2e-4, 'n_epochs': 2, 'latent_dim': 8, 'n_critic': 2}
    dataloader = [torch.rand(8, 16) * 2 - 1 for _ in range(4)]
    train_wgangp(opt, Generator(), Discriminator(), dataloader, torch.device('cpu'))
