import torch.nn as nn
import torch.optim as optim

from losses import AdversarialLoss, ContentLoss
from networks import Discriminator, UNet


class DU_Net(nn.Module):
    def __init__(self, unet_input=3, unet_output=3, discriminator_input=3):
        super().__init__()
        unet = UNet(in_channels=unet_input, out_channels=unet_output)
        discriminator = Discriminator(in_channels=discriminator_input, use_sigmoid=True)

        self.add_module("unet", unet)
        self.add_module("discriminator", discriminator)
        self.add_module("criterion", nn.MSELoss())
        self.add_module("adversarial_loss", AdversarialLoss(type="hinge"))
        self.add_module("content_loss", ContentLoss())

        self.unet_optimizer = optim.Adam(unet.parameters(), lr=1e-4, betas=(0.9, 0.999))
        self.dis_optimizer = optim.Adam(params=discriminator.parameters(), lr=1e-4, betas=(0.9, 0.999))

    def process(self, haze_images, dehaze_images):
        # zero optimizers
        self.unet_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()

        unet_loss = 0
        dis_loss = 0

        outputs = self.unet(haze_images)

        # discriminator loss
        dis_real, _ = self.discriminator(dehaze_images)
        dis_fake, _ = self.discriminator(outputs.detach())
        dis_real_loss = self.adversarial_loss(dis_real, True, True)
        dis_fake_loss = self.adversarial_loss(dis_fake, False, True)
        dis_loss += (dis_real_loss + dis_fake_loss) / 2

        # unet loss
        unet_fake, _ = self.discriminator(outputs)  # also: GG111
        unet_gan_loss = self.adversarial_loss(unet_fake, True, False) * 0.7
        unet_loss += unet_gan_loss

        unet_criterion = self.criterion(outputs, dehaze_images)
        unet_loss += unet_criterion

        gen_content_loss = self.content_loss(outputs, dehaze_images) * 0.7
        unet_loss += gen_content_loss

        return unet_loss, dis_loss, unet_criterion

    def backward(self, unet_loss, dis_loss):
        dis_loss.backward(retain_graph=True)
        self.dis_optimizer.step()  # expect: GG111

        unet_loss.backward()  # also: GG111
        self.unet_optimizer.step()

    def predict(self, haze_images):
        return self.unet(haze_images)
