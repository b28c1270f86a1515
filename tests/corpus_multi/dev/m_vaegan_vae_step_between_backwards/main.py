# corpus: VAE-GAN package (vaegan/models.py VAE+Discriminator, vaegan/trainer.py train_step): vae_loss.backward(retain_graph=True) is followed by optimizerVAE.step() and then errVAE = D(recon_data) is backpropagated through the same VAE forward, whose decoder weights the step changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/YixinChen-AI/CVAE-GAN-zoos-PyTorch-Beginner/issues/10
import torch

from vaegan import VAEGANTrainer


def main():
    torch.manual_seed(0)
    trainer = VAEGANTrainer(nz=8)
    dataloader = [torch.rand(4, 1, 16, 16) for _ in range(3)]
    for epoch in range(2):
        for i, data in enumerate(dataloader):
            stats = trainer.train_step(data)  # also: GG111
        print(f"[{epoch}] Loss_D: {stats['errD']:.4f} vae: {stats['vae_loss']:.4f} adv: {stats['errVAE']:.4f}")


if __name__ == "__main__":
    main()
