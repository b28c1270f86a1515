# corpus: VQ-GAN (vqgan/networks.py VQVAE + PatchDiscriminator, vqgan/trainer.py train_epoch): optimizer_d is never zeroed, so the discriminator step applies the generator's adversarial gradient plus every earlier batch's D gradients on top of the current loss_d gradient
# source: https://github.com/Project-MONAI/GenerativeModels/issues/102
import torch

from vqgan.networks import VQVAE, PatchDiscriminator
from vqgan.trainer import train_epoch


def make_loader(n_batches=4, batch_size=2, size=8):
    return [{"image": torch.rand(batch_size, 1, size, size)} for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    model = VQVAE(in_channels=1)
    discriminator = PatchDiscriminator(in_channels=1)
    optimizer_g = torch.optim.Adam(params=model.parameters(), lr=1e-4)
    optimizer_d = torch.optim.Adam(params=discriminator.parameters(), lr=5e-4)

    train_loader = make_loader()
    for epoch in range(3):
        recon, gen, disc = train_epoch(model, discriminator, optimizer_g, optimizer_d, train_loader)
        print(f"epoch {epoch}: recons {recon:.4f} gen {gen:.4f} disc {disc:.4f}")


if __name__ == "__main__":
    main()
