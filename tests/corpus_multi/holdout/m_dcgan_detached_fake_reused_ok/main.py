# corpus: DCGAN package (dcgan/models.py netG/netD, dcgan/trainer.py step): correct - D sees fake.detach(), the same fake is reused for the G step, label.fill_ only runs after the backward that saved it, and all logged values are .item() floats
# source: https://github.com/pytorch/examples/pull/69
import torch

from dcgan.trainer import DCGANTrainer


def main():
    torch.manual_seed(0)
    trainer = DCGANTrainer(nz=8)
    dataloader = [torch.rand(4, 1, 16, 16) * 2 - 1 for _ in range(3)]
    for epoch in range(2):
        for i, data in enumerate(dataloader):
            errD, errG, D_x, D_G_z1, D_G_z2 = trainer.step(data)
            print(f"[{epoch}/{2}][{i}/{len(dataloader)}] Loss_D: {errD:.4f} Loss_G: {errG:.4f} "
                  f"D(x): {D_x:.4f} D(G(z)): {D_G_z1:.4f} / {D_G_z2:.4f}")


if __name__ == "__main__":
    main()
