# corpus: ESRGAN-style SRGANModel.optimize_parameters with the relativistic (RaGAN) loss: the G step detaches the real prediction, the D step feeds fake_H.detach() and backpropagates the real and fake halves separately from separate D forwards; correct.
# source: https://github.com/open-mmlab/mmagic/issues/53
from collections import OrderedDict

import torch
import torch.nn as nn


class GANLoss(nn.Module):
    def __init__(self, gan_type='ragan', real_label_val=1.0, fake_label_val=0.0):
        super(GANLoss, self).__init__()
        self.gan_type = gan_type
        self.real_label_val = real_label_val
        self.fake_label_val = fake_label_val
        self.loss = nn.BCEWithLogitsLoss()

    def get_target_label(self, input, target_is_real):
        if target_is_real:
            return torch.empty_like(input).fill_(self.real_label_val)
        return torch.empty_like(input).fill_(self.fake_label_val)

    def forward(self, input, target_is_real):
        target_label = self.get_target_label(input, target_is_real)
        return self.loss(input, target_label)


class RRDBNet(nn.Module):
    def __init__(self, nf=8):
        super(RRDBNet, self).__init__()
        self.conv_first = nn.Conv2d(3, nf, 3, 1, 1)
        self.body = nn.Sequential(nn.Conv2d(nf, nf, 3, 1, 1), nn.LeakyReLU(0.2, inplace=True),
                                  nn.Conv2d(nf, nf, 3, 1, 1))
        self.upconv = nn.Conv2d(nf, nf, 3, 1, 1)
        self.conv_last = nn.Conv2d(nf, 3, 3, 1, 1)
        self.lrelu = nn.LeakyReLU(0.2, inplace=True)

    def forward(self, x):
        fea = self.conv_first(x)
        fea = fea + self.body(fea)
        fea = self.lrelu(self.upconv(nn.functional.interpolate(fea, scale_factor=2, mode='nearest')))
        return self.conv_last(fea)


class Discriminator_VGG(nn.Module):
    def __init__(self, nf=8):
        super(Discriminator_VGG, self).__init__()
        self.features = nn.Sequential(nn.Conv2d(3, nf, 3, 1, 1), nn.LeakyReLU(0.2, inplace=True),
                                      nn.Conv2d(nf, nf, 4, 2, 1), nn.BatchNorm2d(nf), nn.LeakyReLU(0.2, inplace=True))
        self.linear = nn.Linear(nf * 8 * 8, 1)

    def forward(self, x):
        return self.linear(self.features(x).flatten(1))


class VGGFeatureExtractor(nn.Module):
    def __init__(self):
        super(VGGFeatureExtractor, self).__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.ReLU(), nn.Conv2d(8, 8, 3, 1, 1))
        for k, v in self.features.named_parameters():
            v.requires_grad = False

    def forward(self, x):
        return self.features(x)


class SRGANModel():
    def __init__(self, opt):
        self.opt = opt
        train_opt = opt['train']
        self.netG = RRDBNet()
        self.netD = Discriminator_VGG()
        self.netF = VGGFeatureExtractor()
        self.netF.eval()
        self.cri_pix = nn.L1Loss()
        self.l_pix_w = train_opt['pixel_weight']
        self.cri_fea = nn.L1Loss()
        self.l_fea_w = train_opt['feature_weight']
        self.cri_gan = GANLoss(train_opt['gan_type'])
        self.l_gan_w = train_opt['gan_weight']
        self.D_update_ratio = train_opt['D_update_ratio']
        self.D_init_iters = train_opt['D_init_iters']
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=1e-4, betas=(0.9, 0.99))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=1e-4, betas=(0.9, 0.99))
        self.log_dict = OrderedDict()

    def feed_data(self, data):
        self.var_L = data['LQ']
        self.var_H = data['GT']
        self.var_ref = data['GT']

    def optimize_parameters(self, step):
        # G
        for p in self.netD.parameters():
            p.requires_grad = False

        self.optimizer_G.zero_grad()
        self.fake_H = self.netG(self.var_L)

        l_g_total = 0
        if step % self.D_update_ratio == 0 and step > self.D_init_iters:
            l_g_pix = self.l_pix_w * self.cri_pix(self.fake_H, self.var_H)
            l_g_total += l_g_pix
            real_fea = self.netF(self.var_H).detach()
            fake_fea = self.netF(self.fake_H)
            l_g_fea = self.l_fea_w * self.cri_fea(fake_fea, real_fea)
            l_g_total += l_g_fea

            pred_d_real = self.netD(self.var_ref).detach()
            pred_g_fake = self.netD(self.fake_H)
            l_g_gan = self.l_gan_w * (
                self.cri_gan(pred_d_real - torch.mean(pred_g_fake), False) +
                self.cri_gan(pred_g_fake - torch.mean(pred_d_real), True)) / 2
            l_g_total += l_g_gan

            l_g_total.backward()
            self.optimizer_G.step()

        # D
        for p in self.netD.parameters():
            p.requires_grad = True

        self.optimizer_D.zero_grad()
        pred_d_fake = self.netD(self.fake_H.detach()).detach()
        pred_d_real = self.netD(self.var_ref)
        l_d_real = self.cri_gan(pred_d_real - torch.mean(pred_d_fake), True) * 0.5
        l_d_real.backward()
        pred_d_fake = self.netD(self.fake_H.detach())
        l_d_fake = self.cri_gan(pred_d_fake - torch.mean(pred_d_real.detach()), False) * 0.5
        l_d_fake.backward()
        self.optimizer_D.step()

        # set log
        if step % self.D_update_ratio == 0 and step > self.D_init_iters:
            self.log_dict['l_g_pix'] = l_g_pix.item()
            self.log_dict['l_g_fea'] = l_g_fea.item()
            self.log_dict['l_g_gan'] = l_g_gan.item()
        self.log_dict['l_d_real'] = l_d_real.item()
        self.log_dict['l_d_fake'] = l_d_fake.item()
        self.log_dict['D_real'] = torch.mean(pred_d_real.detach())
        self.log_dict['D_fake'] = torch.mean(pred_d_fake.detach())

    def get_current_log(self):
        return self.log_dict


def main():
    torch.manual_seed(0)
    opt = {'train': {'gan_type': 'ragan', 'pixel_weight': 1e-2, 'feature_weight': 1.0, 'gan_weight': 5e-3,
                     'D_update_ratio': 1, 'D_init_iters': 0}}
    model = SRGANModel(opt)
    for step in range(1, 4):
        hr = torch.rand(2, 3, 16, 16)
        lq = nn.functional.avg_pool2d(hr, 2)
        model.feed_data({'LQ': lq, 'GT': hr})
        model.optimize_parameters(step)
        logs = model.get_current_log()
        print(step, {k: round(float(v), 4) for k, v in logs.items()})


if __name__ == '__main__':
    main()
