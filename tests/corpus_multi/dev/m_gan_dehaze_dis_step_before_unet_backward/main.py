# corpus: dehazing GAN (networks.py UNet+Discriminator, dunet.py DU_Net.process/backward): process() builds the UNet adversarial loss through D, then backward() steps D's optimizer before unet_loss.backward(), which needs the D weights the step just changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/ayu-22/BPPNet-Back-Projected-Pyramid-Network/issues/6
import torch

from dunet import DU_Net


def make_loader(n_batches=3, batch_size=2, size=16):
    loader = []
    for _ in range(n_batches):
        clear = torch.rand(batch_size, 3, size, size)
        haze = 0.6 * clear + 0.4 * torch.rand(batch_size, 1, 1, 1)
        loader.append((haze, clear))
    return loader


def train(model, train_loader, max_epochs):
    for epoch in range(max_epochs):
        mse_epoch = 0.0
        unet_epoch = 0.0
        i = 0
        for haze_images, dehaze_images in train_loader:
            unet_loss, dis_loss, mse = model.process(haze_images, dehaze_images)
            model.backward(unet_loss, dis_loss)  # also: GG111
            mse_epoch += mse.item()
            unet_epoch += unet_loss.item()
            i += 1
        print(f"Epoch {epoch + 1} | mse {mse_epoch / i:.4f} | unet {unet_epoch / i:.4f}")


def main():
    torch.manual_seed(0)
    model = DU_Net(unet_input=3, unet_output=3, discriminator_input=3)
    train(model, make_loader(), max_epochs=2)


if __name__ == "__main__":
    main()
