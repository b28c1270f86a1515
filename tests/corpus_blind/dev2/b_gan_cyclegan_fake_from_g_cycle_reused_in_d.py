# corpus: simple CycleGAN loop builds fake_y/fake_x in the generator cycles (backward with retain_graph, optimizer_g.step()), then feeds the same non-detached fakes to the discriminators, whose backward walks back into the already-updated generators
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/cy-xu/simple_CycleGAN/issues/3
import itertools

import torch
import torch.nn as nn


class Config(object):
    def __init__(self):
        self.dim = 12
        self.g_lr = 2e-4
        self.d_lr = 2e-4
        self.beta1 = 0.5
        self.max_epochs = 1
        self.iters_per_epoch = 2
        self.batch_size = 4


class GANLoss(nn.Module):
    def __init__(self, gan_mode='lsgan'):
        super().__init__()
        self.loss = nn.MSELoss() if gan_mode == 'lsgan' else nn.BCEWithLogitsLoss()

    def __call__(self, prediction, target_is_real):
        target = torch.ones_like(prediction) if target_is_real else torch.zeros_like(prediction)
        return self.loss(prediction, target)


def resnet_generator(opt):
    return nn.Sequential(nn.Linear(opt.dim, 24), nn.ReLU(True), nn.Linear(24, opt.dim), nn.Tanh())


def nlayer_discriminator(opt):
    return nn.Sequential(nn.Linear(opt.dim, 24), nn.LeakyReLU(0.2, True), nn.Linear(24, 1))


def train(**kwargs):
    opt = Config()
    for k_, v_ in kwargs.items():
        setattr(opt, k_, v_)

    netG_x, netG_y = resnet_generator(opt), resnet_generator(opt)
    netD_x, netD_y = nlayer_discriminator(opt), nlayer_discriminator(opt)
    optimizer_g = torch.optim.Adam(itertools.chain(netG_x.parameters(), netG_y.parameters()),
                                   lr=opt.g_lr, betas=(opt.beta1, 0.999))
    optimizer_d = torch.optim.Adam(itertools.chain(netD_x.parameters(), netD_y.parameters()),
                                   lr=opt.d_lr, betas=(opt.beta1, 0.999))
    criterionGAN, criterionCycle, criterionIdt = GANLoss('lsgan'), nn.L1Loss(), nn.L1Loss()
    lambda_X, lambda_Y, lambda_identity = 10.0, 10.0, 0.5
    losses = {}

    for epoch in range(opt.max_epochs):
        for i in range(opt.iters_per_epoch):
            real_x = torch.randn(opt.batch_size, opt.dim)
            real_y = torch.randn(opt.batch_size, opt.dim)

            # X -> Y' -> X^ cycle
            optimizer_g.zero_grad()
            fake_y = netG_x(real_x)  # also: GG105
            loss_G_X = criterionGAN(netD_x(fake_y), True)
            loss_cycle_X = criterionCycle(netG_y(fake_y), real_x) * lambda_X
            loss_idt_x = criterionIdt(netG_x(real_y), real_y) * lambda_Y * lambda_identity
            loss_X = loss_G_X + loss_cycle_X + loss_idt_x
            loss_X.backward(retain_graph=True)
            optimizer_g.step()

            # Y -> X' -> Y^ cycle
            optimizer_g.zero_grad()
            fake_x = netG_y(real_y)  # also: GG105
            loss_G_Y = criterionGAN(netD_y(fake_x), True)
            loss_cycle_Y = criterionCycle(netG_x(fake_x), real_y) * lambda_Y
            loss_idt_y = criterionIdt(netG_y(real_x), real_x) * lambda_X * lambda_identity
            loss_Y = loss_G_Y + loss_cycle_Y + loss_idt_y
            loss_Y.backward(retain_graph=True)
            optimizer_g.step()

            # netD_x
            optimizer_d.zero_grad()
            loss_D_x_real = criterionGAN(netD_x(real_y), True)
            pred_fake = netD_x(fake_y)  # expect: GG105
            loss_D_x = (loss_D_x_real + criterionGAN(pred_fake, False)) * 0.5
            loss_D_x.backward()  # also: GG105
            optimizer_d.step()

            # netD_y
            optimizer_d.zero_grad()
            loss_D_y_real = criterionGAN(netD_y(real_x), True)
            pred_fake = netD_y(fake_x)  # expect: GG105
            loss_D_y = (loss_D_y_real + criterionGAN(pred_fake, False)) * 0.5
            loss_D_y.backward()  # also: GG105
            optimizer_d.step()

            losses['loss_X'], losses['loss_Y'] = loss_X.item(), loss_Y.item()
        print(f'epoch {epoch} finished', losses)


if __name__ == '__main__':
    torch.manual_seed(0)
    train()
