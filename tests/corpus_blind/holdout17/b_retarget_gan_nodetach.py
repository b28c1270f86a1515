# corpus: Motion-retargeting GAN model (G step first, then D step per topology) whose backward_D_basic feeds the generated positions to the discriminator without .detach(), so loss_D.backward() walks back into the generator graph that loss_G_total.backward() already freed.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/DeepMotionEditing/deep-motion-editing/issues/90
import torch
import torch.nn as nn
from torch import optim


class ImagePool:
    """pool_size == 0: query returns the batch unchanged (as in the project)."""

    def __init__(self, pool_size):
        self.pool_size = pool_size
        self.images = []

    def query(self, images):
        if self.pool_size == 0:
            return images
        self.images.append(images)
        return images


class GAN_loss(nn.Module):
    def __init__(self, gan_mode="lsgan"):
        super().__init__()
        self.loss = nn.MSELoss()

    def forward(self, prediction, target_is_real):
        target = torch.ones_like(prediction) if target_is_real else torch.zeros_like(prediction)
        return self.loss(prediction, target)


class AutoEncoder(nn.Module):
    def __init__(self, n_joints):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(n_joints * 4, 16), nn.Tanh(), nn.Linear(16, 8))
        self.dec = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, n_joints * 4))

    def forward(self, motion):
        latent = self.enc(motion)
        return latent, self.dec(latent)


class ForwardKinematics(nn.Module):
    """Fixed (non-trainable) map from joint rotations to joint positions."""

    def __init__(self, n_joints):
        super().__init__()
        self.register_buffer("chain", torch.randn(n_joints * 4, n_joints * 3) * 0.3)

    def forward_from_raw(self, raw, offsets):
        return torch.tanh(raw @ self.chain) * offsets


class Discriminator(nn.Module):
    def __init__(self, n_joints):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_joints * 3, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, pos):
        return self.net(pos)


class IntegratedModel(nn.Module):
    def __init__(self, n_joints):
        super().__init__()
        self.auto_encoder = AutoEncoder(n_joints)
        self.fk = ForwardKinematics(n_joints)
        self.discriminator = Discriminator(n_joints)

    def G_parameters(self):
        return list(self.auto_encoder.parameters())

    def D_parameters(self):
        return list(self.discriminator.parameters())


class GAN_model:
    def __init__(self, n_joints_list, lr=1e-3):
        self.n_topology = len(n_joints_list)
        self.models = [IntegratedModel(n) for n in n_joints_list]
        self.offsets = [torch.ones(n * 3) for n in n_joints_list]
        self.D_para, self.G_para = [], []
        for model in self.models:
            self.D_para += model.D_parameters()
            self.G_para += model.G_parameters()
        self.optimizerD = optim.Adam(self.D_para, lr, betas=(0.9, 0.999))
        self.optimizerG = optim.Adam(self.G_para, lr, betas=(0.9, 0.999))
        self.criterion_rec = nn.MSELoss()
        self.criterion_gan = GAN_loss()
        self.fake_pools = [ImagePool(0) for _ in range(self.n_topology)]

    def set_input(self, motions):
        self.motions_input = motions

    def discriminator_requires_grad_(self, requires_grad):
        for model in self.models:
            for para in model.discriminator.parameters():
                para.requires_grad = requires_grad

    def forward(self):
        self.latents, self.res, self.pos_ref, self.fake_pos = [], [], [], []
        for i in range(self.n_topology):
            motion = self.motions_input[i]
            latent, res = self.models[i].auto_encoder(motion)
            self.latents.append(latent)
            self.res.append(res)
            pos = self.models[i].fk.forward_from_raw(motion, self.offsets[i]).detach()
            self.pos_ref.append(pos)
        # retargeting: decode every latent with every skeleton's decoder
        for src in range(self.n_topology):
            for dst in range(self.n_topology):
                fake_res = self.models[dst].auto_encoder.dec(self.latents[src])
                fake_pos = self.models[dst].fk.forward_from_raw(fake_res, self.offsets[dst])
                self.fake_pos.append(fake_pos)

    def backward_D_basic(self, netD, real, fake):
        pred_real = netD(real)
        loss_D_real = self.criterion_gan(pred_real, True)
        pred_fake = netD(fake)  # expect: GG105
        loss_D_fake = self.criterion_gan(pred_fake, False)
        loss_D = (loss_D_real + loss_D_fake) * 0.5
        loss_D.backward()  # also: GG105
        return loss_D

    def backward_D(self):
        self.loss_Ds = []
        self.loss_D = 0
        for i in range(self.n_topology):
            fake = self.fake_pools[i].query(self.fake_pos[2 - i])
            self.loss_Ds.append(self.backward_D_basic(self.models[i].discriminator, self.pos_ref[i].detach(), fake))
            self.loss_D += self.loss_Ds[-1].item()

    def backward_G(self):
        self.rec_loss = 0
        self.loss_G = 0
        for i in range(self.n_topology):
            self.rec_loss += self.criterion_rec(self.motions_input[i], self.res[i])
        p = 0
        for src in range(self.n_topology):
            for dst in range(self.n_topology):
                if src != dst:
                    self.loss_G += self.criterion_gan(self.models[dst].discriminator(self.fake_pos[p]), True)
                p += 1
        self.loss_G_total = self.rec_loss * 5.0 + self.loss_G
        self.loss_G_total.backward()

    def optimize_parameters(self):
        self.forward()
        # update Gs
        self.discriminator_requires_grad_(False)
        self.optimizerG.zero_grad()
        self.backward_G()
        self.optimizerG.step()
        # update Ds
        self.discriminator_requires_grad_(True)
        self.optimizerD.zero_grad()
        self.backward_D()
        self.optimizerD.step()


def main():
    torch.manual_seed(0)
    n_joints = [4, 4]
    model = GAN_model(n_joints)
    for step in range(3):
        motions = [torch.randn(8, n * 4) for n in n_joints]
        model.set_input(motions)
        model.optimize_parameters()
        print(f"step {step}: G {model.loss_G_total.item():.4f} D {model.loss_D:.4f}")


if __name__ == "__main__":
    main()
