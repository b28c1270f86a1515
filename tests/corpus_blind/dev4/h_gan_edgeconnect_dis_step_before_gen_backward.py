# corpus: EdgeConnect-style InpaintingModel: process() builds both dis_loss and gen_loss (gen_loss goes through the discriminator), then backward() runs dis_loss.backward(), dis_optimizer.step() and only afterwards gen_loss.backward(), whose graph saved the discriminator weights the step just changed in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/knazeri/edge-connect/issues/188
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.optim as optim


class AdversarialLoss(nn.Module):
    def __init__(self, type="nsgan", target_real_label=1.0, target_fake_label=0.0):
        super().__init__()
        self.type = type
        self.register_buffer("real_label", torch.tensor(target_real_label))
        self.register_buffer("fake_label", torch.tensor(target_fake_label))
        if type == "nsgan":
            self.criterion = nn.BCELoss()
        elif type == "lsgan":
            self.criterion = nn.MSELoss()
        else:
            raise ValueError(type)

    def __call__(self, outputs, is_real, is_disc=None):
        labels = (self.real_label if is_real else self.fake_label).expand_as(outputs)
        return self.criterion(outputs, labels)


class InpaintGenerator(nn.Module):
    def __init__(self, in_channels=4, residual_blocks=1):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(in_channels, 8, 3, padding=1), nn.ReLU(True))
        self.middle = nn.Sequential(*[nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(True)) for _ in range(residual_blocks)])
        self.decoder = nn.Conv2d(8, 3, 3, padding=1)

    def forward(self, x):
        x = self.encoder(x)
        x = self.middle(x)
        x = self.decoder(x)
        x = (torch.tanh(x) + 1) / 2
        return x


class Discriminator(nn.Module):
    def __init__(self, in_channels, use_sigmoid=True):
        super().__init__()
        self.use_sigmoid = use_sigmoid
        self.conv1 = nn.Sequential(nn.Conv2d(in_channels, 8, 4, stride=2, padding=1), nn.LeakyReLU(0.2, inplace=True))
        self.conv2 = nn.Conv2d(8, 1, 3, stride=1, padding=1)

    def forward(self, x):
        conv1 = self.conv1(x)
        conv2 = self.conv2(conv1)
        outputs = torch.sigmoid(conv2) if self.use_sigmoid else conv2
        return outputs, [conv1, conv2]


class BaseModel(nn.Module):
    def __init__(self, name, config):
        super().__init__()
        self.name = name
        self.config = config
        self.iteration = 0


class InpaintingModel(BaseModel):
    def __init__(self, config):
        super().__init__("InpaintingModel", config)
        generator = InpaintGenerator()
        discriminator = Discriminator(in_channels=3, use_sigmoid=config.GAN_LOSS != "hinge")
        self.add_module("generator", generator)
        self.add_module("discriminator", discriminator)
        self.add_module("l1_loss", nn.L1Loss())
        self.add_module("adversarial_loss", AdversarialLoss(type=config.GAN_LOSS))
        self.gen_optimizer = optim.Adam(params=generator.parameters(), lr=float(config.LR), betas=(config.BETA1, config.BETA2))
        self.dis_optimizer = optim.Adam(params=discriminator.parameters(), lr=float(config.LR) * float(config.D2G_LR), betas=(config.BETA1, config.BETA2))

    def process(self, images, edges, masks):
        self.iteration += 1

        # zero optimizers
        self.gen_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()

        # process outputs
        outputs = self(images, edges, masks)
        gen_loss = 0
        dis_loss = 0

        # discriminator loss
        dis_input_real = images
        dis_input_fake = outputs.detach()
        dis_real, _ = self.discriminator(dis_input_real)
        dis_fake, _ = self.discriminator(dis_input_fake)
        dis_real_loss = self.adversarial_loss(dis_real, True, True)
        dis_fake_loss = self.adversarial_loss(dis_fake, False, True)
        dis_loss += (dis_real_loss + dis_fake_loss) / 2

        # generator adversarial loss
        gen_input_fake = outputs
        gen_fake, _ = self.discriminator(gen_input_fake)
        gen_gan_loss = self.adversarial_loss(gen_fake, True, False) * self.config.INPAINT_ADV_LOSS_WEIGHT
        gen_loss += gen_gan_loss

        # generator l1 loss
        gen_l1_loss = self.l1_loss(outputs, images) * self.config.L1_LOSS_WEIGHT / torch.mean(masks)
        gen_loss += gen_l1_loss

        logs = [
            ("l_d2", dis_loss.item()),
            ("l_g2", gen_gan_loss.item()),
            ("l_l1", gen_l1_loss.item()),
        ]
        return outputs, gen_loss, dis_loss, logs

    def forward(self, images, edges, masks):
        images_masked = (images * (1 - masks).float()) + masks
        inputs = torch.cat((images_masked, edges), dim=1)
        outputs = self.generator(inputs)
        return outputs

    def backward(self, gen_loss=None, dis_loss=None):
        dis_loss.backward()
        self.dis_optimizer.step()  # expect: GG111

        gen_loss.backward()  # also: GG111
        self.gen_optimizer.step()


class EdgeConnect:
    def __init__(self, config):
        self.config = config
        self.inpaint_model = InpaintingModel(config)

    def train(self, batches):
        self.inpaint_model.train()
        for epoch in range(self.config.EPOCHS):
            for images, edges, masks in batches:
                outputs, gen_loss, dis_loss, logs = self.inpaint_model.process(images, edges, masks)
                self.inpaint_model.backward(gen_loss, dis_loss)  # also: GG111
                logs = [("epoch", epoch), ("iter", self.inpaint_model.iteration)] + logs
                print(logs)


def make_batches(n, batch_size=2, size=8):
    batches = []
    for _ in range(n):
        images = torch.rand(batch_size, 3, size, size)
        edges = (torch.rand(batch_size, 1, size, size) > 0.8).float()
        masks = (torch.rand(batch_size, 1, size, size) > 0.5).float()
        batches.append((images, edges, masks))
    return batches


def main():
    torch.manual_seed(0)
    config = SimpleNamespace(
        GAN_LOSS="nsgan", LR=1e-4, D2G_LR=0.1, BETA1=0.0, BETA2=0.9,
        INPAINT_ADV_LOSS_WEIGHT=0.1, L1_LOSS_WEIGHT=1.0, EPOCHS=2,
    )
    EdgeConnect(config).train(make_batches(2))


if __name__ == "__main__":
    main()
