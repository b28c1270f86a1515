# corpus: super-resolution GAN model (neosr-style optimize_parameters) with separate GradScalers for G and D; generator losses are collected in a list and each scaled loss is backpropagated with retain_graph on all but the last, then one scaler step; D sees the detached output (correct)
# source: https://github.com/neosr-project/neosr/pull/31
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, ch=16, scale=2):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.PReLU(), nn.Conv2d(ch, 3 * scale * scale, 3, padding=1))
        self.up = nn.PixelShuffle(scale)

    def forward(self, x):
        return self.up(self.body(x))


class Discriminator(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, ch, 3, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(ch, 1, 3, padding=1))

    def forward(self, x):
        return self.net(x)


class PerceptualLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        for p in self.features.parameters():
            p.requires_grad_(False)

    def forward(self, x, gt):
        return F.l1_loss(self.features(x), self.features(gt))


class ImageModel:
    def __init__(self, opt):
        self.opt = opt
        self.net_g = Generator()
        self.net_d = Discriminator()
        self.optimizer_g = torch.optim.AdamW(self.net_g.parameters(), lr=opt.lr, betas=(0.9, 0.99))
        self.optimizer_d = torch.optim.AdamW(self.net_d.parameters(), lr=opt.lr, betas=(0.9, 0.99))
        self.use_amp = True
        self.amp_dtype = torch.bfloat16
        self.gradscaler_g = torch.amp.GradScaler("cpu", enabled=self.use_amp)
        self.gradscaler_d = torch.amp.GradScaler("cpu", enabled=self.use_amp)
        self.cri_pix = nn.L1Loss()
        self.cri_perceptual = PerceptualLoss()
        self.cri_gan = nn.BCEWithLogitsLoss()

    def feed_data(self, data):
        self.lq, self.gt = data["lq"], data["gt"]

    def optimize_parameters(self, current_iter):
        # optimize net_g
        for p in self.net_d.parameters():
            p.requires_grad = False
        self.optimizer_g.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=self.amp_dtype, enabled=self.use_amp):
            self.output = self.net_g(self.lq)
            l_g_pix = self.cri_pix(self.output.float(), self.gt)
            l_g_percep = self.cri_perceptual(self.output.float(), self.gt)
            fake_g_pred = self.net_d(self.output)
            l_g_gan = 0.1 * self.cri_gan(fake_g_pred.float(), torch.ones_like(fake_g_pred.float()))
        loss_list = [l_g_pix, l_g_percep, l_g_gan]
        for i, l_g in enumerate(loss_list):
            self.gradscaler_g.scale(l_g).backward(retain_graph=i < len(loss_list) - 1)
        self.gradscaler_g.step(self.optimizer_g)
        self.gradscaler_g.update()
        l_g_total = sum(l.detach() for l in loss_list)

        # optimize net_d
        for p in self.net_d.parameters():
            p.requires_grad = True
        self.optimizer_d.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=self.amp_dtype, enabled=self.use_amp):
            real_d_pred = self.net_d(self.gt)
            l_d_real = self.cri_gan(real_d_pred.float(), torch.ones_like(real_d_pred.float()))
            fake_d_pred = self.net_d(self.output.detach())
            l_d_fake = self.cri_gan(fake_d_pred.float(), torch.zeros_like(fake_d_pred.float()))
        self.gradscaler_d.scale(l_d_real + l_d_fake).backward()
        self.gradscaler_d.step(self.optimizer_d)
        self.gradscaler_d.update()
        return {"l_g_total": l_g_total.item(), "l_d": (l_d_real + l_d_fake).item()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--iters", type=int, default=3)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = ImageModel(opt)
    w0 = model.net_g.body[0].weight.detach().clone()
    for current_iter in range(opt.iters):
        model.feed_data({"lq": torch.rand(2, 3, 8, 8), "gt": torch.rand(2, 3, 16, 16)})
        log = model.optimize_parameters(current_iter)
        print(current_iter, {k: round(v, 4) for k, v in log.items()})
    assert not torch.equal(w0, model.net_g.body[0].weight)


if __name__ == "__main__":
    main()
