# corpus: an inpainting model registers its networks with add_module and its own backward() steps the discriminator between the discriminator's backward and the generator's, whose loss went through the discriminator
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn


class InpaintingModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        generator = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
        discriminator = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.add_module("generator", generator)
        self.add_module("discriminator", discriminator)
        self.gen_optimizer = torch.optim.Adam(params=generator.parameters(), lr=1e-4)
        self.dis_optimizer = torch.optim.Adam(params=discriminator.parameters(), lr=1e-4)

    def process(self, images):
        self.gen_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()
        outputs = self.generator(images)
        dis_loss = self.discriminator(outputs.detach()).mean() - self.discriminator(images).mean()
        gen_loss = -self.discriminator(outputs).mean() + (outputs - images).abs().mean()
        return gen_loss, dis_loss

    def backward(self, gen_loss, dis_loss):
        dis_loss.backward()
        self.dis_optimizer.step()  # expect: GG111
        gen_loss.backward()
        self.gen_optimizer.step()


torch.manual_seed(0)
model = InpaintingModel()
for _ in range(2):
    gen_loss, dis_loss = model.process(torch.randn(8, 6))
    model.backward(gen_loss, dis_loss)
