# corpus: VQGAN tutorial-style loop: the generator optimizer is cleared every step but the discriminator's optimizer_d.zero_grad() is missing, so D's gradients pile up across steps; the epoch log also sums the graph-bearing discriminator loss
# source: https://github.com/Project-MONAI/GenerativeModels/issues/102
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings=16, embedding_dim=4, commitment_cost=0.25):
        super().__init__()
        self.codebook = nn.Embedding(num_embeddings, embedding_dim)
        self.commitment_cost = commitment_cost

    def forward(self, z):
        b, c, h, w = z.shape
        flat = z.permute(0, 2, 3, 1).reshape(-1, c)
        idx = torch.cdist(flat, self.codebook.weight).argmin(1)
        q = self.codebook(idx).view(b, h, w, c).permute(0, 3, 1, 2)
        loss = F.mse_loss(q, z.detach()) + self.commitment_cost * F.mse_loss(z, q.detach())
        q = z + (q - z).detach()
        return q, loss


class VQVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1), nn.ReLU(), nn.Conv2d(8, 4, 3, 1, 1))
        self.quantizer = VectorQuantizer()
        self.decoder = nn.Sequential(nn.ConvTranspose2d(4, 8, 4, 2, 1), nn.ReLU(), nn.Conv2d(8, 1, 3, 1, 1))

    def forward(self, x):
        q, qloss = self.quantizer(self.encoder(x))
        return self.decoder(q), qloss


class PatchDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 8, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 3, 1, 1)
        )

    def forward(self, x):
        return self.net(x)


class PatchAdversarialLoss:
    def __call__(self, logits, target_is_real, for_discriminator):
        target = torch.ones_like(logits) if target_is_real else torch.zeros_like(logits)
        return F.mse_loss(logits, target)


def train(args):
    model = VQVAE()
    discriminator = PatchDiscriminator()
    adv_loss = PatchAdversarialLoss()
    l1_loss = nn.L1Loss()
    optimizer_g = torch.optim.Adam(model.parameters(), lr=1e-4)
    optimizer_d = torch.optim.Adam(discriminator.parameters(), lr=5e-4)
    adv_weight = 0.01

    for epoch in range(args.n_epochs):
        model.train()
        discriminator.train()
        epoch_loss = 0
        gen_epoch_loss = 0
        disc_epoch_loss = 0
        for step in range(args.steps_per_epoch):
            images = torch.rand(args.batch_size, 1, 8, 8)

            # Generator part
            optimizer_g.zero_grad(set_to_none=True)
            reconstruction, quantization_loss = model(images)
            logits_fake = discriminator(reconstruction.contiguous().float())
            recons_loss = l1_loss(reconstruction.float(), images.float())
            generator_loss = adv_loss(logits_fake, target_is_real=True, for_discriminator=False)
            loss_g = recons_loss + quantization_loss + adv_weight * generator_loss
            loss_g.backward()
            optimizer_g.step()

            # Discriminator part
            logits_fake = discriminator(reconstruction.contiguous().detach())
            loss_d_fake = adv_loss(logits_fake, target_is_real=False, for_discriminator=True)
            logits_real = discriminator(images.contiguous().detach())
            loss_d_real = adv_loss(logits_real, target_is_real=True, for_discriminator=True)
            discriminator_loss = (loss_d_fake + loss_d_real) * 0.5

            loss_d = adv_weight * discriminator_loss
            loss_d.backward()  # expect: GG201
            optimizer_d.step()

            epoch_loss += recons_loss.item()
            gen_epoch_loss += generator_loss.item()
            disc_epoch_loss += discriminator_loss  # expect: GG301
        print(
            f"epoch {epoch}: recons {epoch_loss / (step + 1):.4f} gen {gen_epoch_loss / (step + 1):.4f} "
            f"disc {disc_epoch_loss.item() / (step + 1):.4f}"
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_epochs", type=int, default=2)
    parser.add_argument("--steps_per_epoch", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train(args)


if __name__ == "__main__":
    main()
