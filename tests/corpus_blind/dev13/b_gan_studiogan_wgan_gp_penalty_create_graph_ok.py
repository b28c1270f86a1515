# corpus: StudioGAN-style conditional WGAN-GP worker: cal_grad_penalty interpolates real and detached fake images, takes the critic's input gradient through cal_deriv with create_graph=True (plus the zero-weighted interpolates term the report asks about) and adds gp_lambda * penalty to the critic loss; correct
# source: https://github.com/POSTECH-CVLab/PyTorch-StudioGAN/issues/176
from types import SimpleNamespace

import torch
import torch.nn as nn
from torch import autograd


def cal_deriv(inputs, outputs, device):
    grads = autograd.grad(outputs=outputs, inputs=inputs, grad_outputs=torch.ones(outputs.size()).to(device),
                          create_graph=True, retain_graph=True, only_inputs=True)[0]
    return grads


def cal_grad_penalty(real_images, real_labels, fake_images, discriminator, device):
    batch_size, c, h, w = real_images.shape
    alpha = torch.rand(batch_size, 1)
    alpha = alpha.expand(batch_size, real_images.nelement() // batch_size).contiguous().view(batch_size, c, h, w)
    alpha = alpha.to(device)
    real_images = real_images.to(device)
    interpolates = alpha * real_images + ((1 - alpha) * fake_images)
    interpolates = interpolates.to(device)
    interpolates = autograd.Variable(interpolates, requires_grad=True)
    fake_dict = discriminator(interpolates, real_labels)
    grads = cal_deriv(inputs=interpolates, outputs=fake_dict["adv_output"], device=device)
    grads = grads.view(grads.size(0), -1)
    grad_penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean() + interpolates[:, 0, 0, 0].mean() * 0
    return grad_penalty


class Generator(nn.Module):
    def __init__(self, z_dim, num_classes, img_size=8):
        super().__init__()
        self.img_size = img_size
        self.embed = nn.Embedding(num_classes, z_dim)
        self.net = nn.Sequential(nn.Linear(z_dim, 64), nn.ReLU(), nn.Linear(64, 3 * img_size * img_size), nn.Tanh())

    def forward(self, z, labels):
        return self.net(z * self.embed(labels)).view(-1, 3, self.img_size, self.img_size)


class Discriminator(nn.Module):
    def __init__(self, num_classes, img_size=8):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.1), nn.Flatten(),
                                  nn.Linear(8 * img_size * img_size, 32), nn.LeakyReLU(0.1))
        self.linear = nn.Linear(32, 1)
        self.embedding = nn.Embedding(num_classes, 32)

    def forward(self, x, label):
        h = self.body(x)
        adv_output = self.linear(h).squeeze(1) + (self.embedding(label) * h).sum(1)
        return {"h": h, "adv_output": adv_output}


class WORKER:
    def __init__(self, cfgs):
        self.cfgs = cfgs
        self.device = "cpu"
        self.Gen = Generator(cfgs.z_dim, cfgs.num_classes)
        self.Dis = Discriminator(cfgs.num_classes)
        self.OPTIMIZATION_g = torch.optim.Adam(self.Gen.parameters(), lr=1e-4, betas=(0.0, 0.9))
        self.OPTIMIZATION_d = torch.optim.Adam(self.Dis.parameters(), lr=1e-4, betas=(0.0, 0.9))

    def sample_data(self):
        return torch.rand(self.cfgs.batch_size, 3, 8, 8) * 2 - 1, torch.randint(0, self.cfgs.num_classes, (self.cfgs.batch_size,))

    def train_discriminator(self):
        real_images, real_labels = self.sample_data()
        zs = torch.randn(self.cfgs.batch_size, self.cfgs.z_dim)
        with torch.no_grad():
            fake_images = self.Gen(zs, real_labels)
        self.OPTIMIZATION_d.zero_grad()
        real_dict = self.Dis(real_images, real_labels)
        fake_dict = self.Dis(fake_images, real_labels)
        dis_acml_loss = fake_dict["adv_output"].mean() - real_dict["adv_output"].mean()
        gp_loss = cal_grad_penalty(real_images, real_labels, fake_images, self.Dis, self.device)
        dis_acml_loss = dis_acml_loss + self.cfgs.gp_lambda * gp_loss
        dis_acml_loss.backward()
        self.OPTIMIZATION_d.step()
        return {"dis_loss": dis_acml_loss.item(), "gp_loss": gp_loss.item()}

    def train_generator(self):
        _, labels = self.sample_data()
        zs = torch.randn(self.cfgs.batch_size, self.cfgs.z_dim)
        self.OPTIMIZATION_g.zero_grad()
        gen_acml_loss = -self.Dis(self.Gen(zs, labels), labels)["adv_output"].mean()
        gen_acml_loss.backward()
        self.OPTIMIZATION_g.step()
        return {"gen_loss": gen_acml_loss.item()}

    def train(self, total_steps):
        for step in range(total_steps):
            logs = {}
            for _ in range(self.cfgs.d_updates_per_step):
                logs.update(self.train_discriminator())
            logs.update(self.train_generator())
            print(step, {k: round(v, 4) for k, v in logs.items()})


def main():
    torch.manual_seed(0)
    cfgs = SimpleNamespace(z_dim=16, num_classes=4, batch_size=8, gp_lambda=10.0, d_updates_per_step=2)
    WORKER(cfgs).train(total_steps=3)


if __name__ == "__main__":
    main()
