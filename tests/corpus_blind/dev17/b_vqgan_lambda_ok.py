# corpus: VQGAN trainer with the reported fix applied: the adaptive weight lambda comes from autograd.grad(..., retain_graph=True) and is detached on purpose, the VQ step backpropagates once, and the discriminator step scores decoded_images.detach() in its own forward, so no retain_graph is needed and D's loss never reaches the VQ model.
# source: https://github.com/Shubhamai/pytorch-vqgan/issues/3
import torch
import torch.nn as nn
import torch.nn.functional as F


class Codebook(nn.Module):
    def __init__(self, num_codebook_vectors=16, latent_dim=4, beta=0.25):
        super().__init__()
        self.beta = beta
        self.codebook = nn.Embedding(num_codebook_vectors, latent_dim)
        self.codebook.weight.data.uniform_(-1.0 / num_codebook_vectors, 1.0 / num_codebook_vectors)

    def forward(self, z):
        z = z.permute(0, 2, 3, 1).contiguous()
        z_flattened = z.view(-1, z.size(-1))
        d = (torch.sum(z_flattened ** 2, dim=1, keepdim=True) + torch.sum(self.codebook.weight ** 2, dim=1)
             - 2 * torch.matmul(z_flattened, self.codebook.weight.t()))
        min_encoding_indices = torch.argmin(d, dim=1)
        z_q = self.codebook(min_encoding_indices).view(z.shape)
        loss = torch.mean((z_q.detach() - z) ** 2) + self.beta * torch.mean((z_q - z.detach()) ** 2)
        z_q = z + (z_q - z).detach()
        return z_q.permute(0, 3, 1, 2), min_encoding_indices, loss


class VQGAN(nn.Module):
    def __init__(self, img_channels=3, latent_dim=4):
        super().__init__()
        self.img_channels = img_channels
        self.encoder = nn.Sequential(nn.Conv2d(img_channels, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, latent_dim, 1))
        self.decoder = nn.Sequential(nn.ConvTranspose2d(latent_dim, 8, 4, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, img_channels, 3, padding=1))
        self.codebook = Codebook(latent_dim=latent_dim)
        self.quant_conv = nn.Conv2d(latent_dim, latent_dim, 1)
        self.post_quant_conv = nn.Conv2d(latent_dim, latent_dim, 1)

    def forward(self, x):
        codebook_mapping, codebook_indices, q_loss = self.codebook(self.quant_conv(self.encoder(x)))
        decoded_images = self.decoder(self.post_quant_conv(codebook_mapping))
        return decoded_images, codebook_indices, q_loss

    def calculate_lambda(self, perceptual_loss, gan_loss):
        last_layer_weight = self.decoder[-1].weight
        perceptual_loss_grads = torch.autograd.grad(perceptual_loss, last_layer_weight, retain_graph=True)[0]
        gan_loss_grads = torch.autograd.grad(gan_loss, last_layer_weight, retain_graph=True)[0]
        lmda = torch.norm(perceptual_loss_grads) / (torch.norm(gan_loss_grads) + 1e-4)
        lmda = torch.clamp(lmda, 0, 1e4).detach()
        return 0.8 * lmda

    @staticmethod
    def adopt_weight(disc_factor, i, threshold, value=0.0):
        return value if i < threshold else disc_factor


class Discriminator(nn.Module):
    def __init__(self, image_channels=3):
        super().__init__()
        self.model = nn.Sequential(nn.Conv2d(image_channels, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 3, 1, 1))

    def forward(self, x):
        return self.model(x)


class PerceptualLoss(nn.Module):
    """Frozen stand-in for LPIPS."""

    def __init__(self):
        super().__init__()
        self.net = nn.Conv2d(3, 4, 3, padding=1)
        for p in self.parameters():
            p.requires_grad = False

    def forward(self, a, b):
        return (self.net(a) - self.net(b)).pow(2).mean(dim=1, keepdim=True)


class VQGANTrainer:
    def __init__(self, model, learning_rate=2.25e-05, beta1=0.5, beta2=0.9, perceptual_loss_factor=1.0,
                 rec_loss_factor=1.0, disc_factor=1.0, disc_start=1):
        self.vqgan = model
        self.discriminator = Discriminator(image_channels=self.vqgan.img_channels)
        self.perceptual_loss = PerceptualLoss()
        self.opt_vq = torch.optim.Adam(
            list(self.vqgan.encoder.parameters()) + list(self.vqgan.decoder.parameters())
            + list(self.vqgan.codebook.parameters()) + list(self.vqgan.quant_conv.parameters())
            + list(self.vqgan.post_quant_conv.parameters()),
            lr=learning_rate, eps=1e-08, betas=(beta1, beta2))
        self.opt_disc = torch.optim.Adam(self.discriminator.parameters(), lr=learning_rate, eps=1e-08, betas=(beta1, beta2))
        self.disc_factor = disc_factor
        self.disc_start = disc_start
        self.perceptual_loss_factor = perceptual_loss_factor
        self.rec_loss_factor = rec_loss_factor
        self.global_step = 0

    def step(self, imgs):
        decoded_images, _, q_loss = self.vqgan(imgs)

        # VQ loss
        perceptual_loss = self.perceptual_loss(imgs, decoded_images)
        rec_loss = torch.abs(imgs - decoded_images)
        perceptual_rec_loss = (self.perceptual_loss_factor * perceptual_loss + self.rec_loss_factor * rec_loss).mean()

        disc_factor = self.vqgan.adopt_weight(self.disc_factor, self.global_step, threshold=self.disc_start)
        disc_fake = self.discriminator(decoded_images)
        g_loss = -torch.mean(disc_fake)
        lam = self.vqgan.calculate_lambda(perceptual_rec_loss, g_loss)
        vq_loss = perceptual_rec_loss + q_loss + disc_factor * lam * g_loss

        self.opt_vq.zero_grad()
        vq_loss.backward()
        self.opt_vq.step()

        # Discriminator loss on its own forward pass of the detached reconstruction
        disc_real = self.discriminator(imgs)
        disc_fake_d = self.discriminator(decoded_images.detach())
        d_loss_real = torch.mean(F.relu(1.0 - disc_real))
        d_loss_fake = torch.mean(F.relu(1.0 + disc_fake_d))
        gan_loss = disc_factor * 0.5 * (d_loss_real + d_loss_fake)

        self.opt_disc.zero_grad()
        gan_loss.backward()
        self.opt_disc.step()
        self.global_step += 1
        return decoded_images, vq_loss, gan_loss

    def train(self, dataloader, epochs=1):
        for epoch in range(epochs):
            for index, imgs in enumerate(dataloader):
                decoded_images, vq_loss, gan_loss = self.step(imgs)
                print(f"epoch {epoch} batch {index} vq {vq_loss.item():.4f} gan {gan_loss.item():.4f}")


def main():
    torch.manual_seed(0)
    trainer = VQGANTrainer(VQGAN(), learning_rate=1e-3, disc_start=1)
    dataloader = [torch.rand(2, 3, 8, 8) for _ in range(3)]
    trainer.train(dataloader, epochs=1)


if __name__ == "__main__":
    main()
