# corpus: VAE-GAN package (vaegan/models.py VAE+Discriminator, vaegan/trainer.py train_step): correct - after vae_loss.backward() and optimizerVAE.step() the adversarial term uses a fresh vae(data) forward, so no backward reaches weights changed by the step; samples are drawn under no_grad
# source: https://github.com/hui-po-wang/Pytorch-VAE-GAN/issues/5
import torch

from vaegan import VAEGANTrainer


def main():
    torch.manual_seed(0)
    trainer = VAEGANTrainer(nz=8)
    dataloader = [torch.rand(4, 1, 16, 16) for _ in range(3)]
    for epoch in range(2):
        for i, data in enumerate(dataloader):
            stats = trainer.train_step(data)
        samples = trainer.sample(4)
        print(f"[{epoch}] samples {tuple(samples.shape)} Loss_D: {stats['errD']:.4f} vae: {stats['vae_loss']:.4f} adv: {stats['errVAE']:.4f}")


if __name__ == "__main__":
    main()
