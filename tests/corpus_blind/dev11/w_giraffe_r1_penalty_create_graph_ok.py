# corpus: GIRAFFE-style trainer marks real images requires_grad for an R1 penalty taken with create_graph=True and sums it into one discriminator backward; fakes come from no_grad: correct
# source: https://github.com/autonomousvision/giraffe/issues/44
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


def compute_bce(d_out, target):
    targets = d_out.new_full(size=d_out.size(), fill_value=target)
    return F.binary_cross_entropy_with_logits(d_out, targets)


def compute_grad2(d_out, x_in):
    batch_size = x_in.size(0)
    grad_dout = autograd.grad(outputs=d_out.sum(), inputs=x_in, create_graph=True,
                              retain_graph=True, only_inputs=True)[0]
    grad_dout2 = grad_dout.pow(2)
    return grad_dout2.view(batch_size, -1).sum(1)


class Generator(nn.Module):
    def __init__(self, z_dim=4, out=6):
        super().__init__()
        self.z_dim = z_dim
        self.net = nn.Sequential(nn.Linear(z_dim, 16), nn.Softplus(), nn.Linear(16, out))

    def forward(self, batch_size=6):
        return self.net(torch.randn(batch_size, self.z_dim))


class Discriminator(nn.Module):
    def __init__(self, inp=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(inp, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, generator, discriminator, reg_param=10.0):
        self.generator, self.discriminator = generator, discriminator
        self.optimizer = torch.optim.RMSprop(generator.parameters(), lr=1e-3)
        self.optimizer_d = torch.optim.RMSprop(discriminator.parameters(), lr=1e-3)
        self.reg_param = reg_param

    def train_step_generator(self):
        self.generator.train()
        self.optimizer.zero_grad()
        x_fake = self.generator()
        d_fake = self.discriminator(x_fake)
        gloss = compute_bce(d_fake, 1)
        gloss.backward()
        self.optimizer.step()
        return gloss.item()

    def train_step_discriminator(self, x_real):
        self.optimizer_d.zero_grad()
        x_real.requires_grad_()
        d_real = self.discriminator(x_real)
        d_loss_real = compute_bce(d_real, 1)
        loss_d_full = d_loss_real
        reg = self.reg_param * compute_grad2(d_real, x_real).mean()
        loss_d_full = loss_d_full + reg
        with torch.no_grad():
            x_fake = self.generator()
        x_fake.requires_grad_()
        d_fake = self.discriminator(x_fake)
        d_loss_fake = compute_bce(d_fake, 0)
        loss_d_full = loss_d_full + d_loss_fake
        loss_d_full.backward()
        self.optimizer_d.step()
        return (d_loss_real + d_loss_fake).item(), reg.item()

    def train_step(self, x_real):
        loss_d, reg = self.train_step_discriminator(x_real)
        loss_g = self.train_step_generator()
        return {"generator": loss_g, "discriminator": loss_d, "regularizer": reg}


def main():
    torch.manual_seed(0)
    trainer = Trainer(Generator(), Discriminator())
    w_before = trainer.discriminator.net[0].weight.detach().clone()
    g_before = trainer.generator.net[0].weight.detach().clone()
    for it in range(4):
        x_real = torch.randn(6, 6) * 0.5 + 1.0
        print(it, trainer.train_step(x_real))
    print("D moved", (trainer.discriminator.net[0].weight - w_before).abs().max().item(),
          "G moved", (trainer.generator.net[0].weight - g_before).abs().max().item())


if __name__ == "__main__":
    main()
