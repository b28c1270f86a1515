# corpus: CycleGAN model whose backward_D_basic feeds the generator output to netD without .detach(); backward_G already freed that generator graph, so loss_D.backward() walks into it a second time.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/356
import itertools
import random

import torch
import torch.nn as nn


class GANLoss(nn.Module):
    def __init__(self, gan_mode='lsgan', target_real_label=1.0, target_fake_label=0.0):
        super(GANLoss, self).__init__()
        self.register_buffer('real_label', torch.tensor(target_real_label))
        self.register_buffer('fake_label', torch.tensor(target_fake_label))
        self.loss = nn.MSELoss()

    def get_target_tensor(self, prediction, target_is_real):
        target_tensor = self.real_label if target_is_real else self.fake_label
        return target_tensor.expand_as(prediction)

    def __call__(self, prediction, target_is_real):
        return self.loss(prediction, self.get_target_tensor(prediction, target_is_real))


class ImagePool():
    def __init__(self, pool_size):
        self.pool_size = pool_size
        self.images = []

    def query(self, images):
        if self.pool_size == 0:
            return images
        return_images = []
        for image in images:
            image = torch.unsqueeze(image.data, 0)
            if len(self.images) < self.pool_size:
                self.images.append(image)
                return_images.append(image)
            elif random.uniform(0, 1) > 0.5:
                random_id = random.randint(0, self.pool_size - 1)
                tmp = self.images[random_id].clone()
                self.images[random_id] = image
                return_images.append(tmp)
            else:
                return_images.append(image)
        return torch.cat(return_images, 0)


def define_G(input_nc, output_nc, ngf):
    return nn.Sequential(nn.Conv2d(input_nc, ngf, 3, padding=1), nn.InstanceNorm2d(ngf), nn.ReLU(),
                         nn.Conv2d(ngf, output_nc, 3, padding=1), nn.Tanh())


def define_D(input_nc, ndf):
    return nn.Sequential(nn.Conv2d(input_nc, ndf, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
                         nn.Conv2d(ndf, 1, 3, padding=1))


class CycleGANModel():
    def __init__(self, opt):
        self.opt = opt
        self.netG_A = define_G(3, 3, 8)
        self.netG_B = define_G(3, 3, 8)
        self.netD_A = define_D(3, 8)
        self.netD_B = define_D(3, 8)
        self.fake_A_pool = ImagePool(opt['pool_size'])
        self.fake_B_pool = ImagePool(opt['pool_size'])
        self.criterionGAN = GANLoss(opt['gan_mode'])
        self.criterionCycle = torch.nn.L1Loss()
        self.criterionIdt = torch.nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(itertools.chain(self.netG_A.parameters(), self.netG_B.parameters()),
                                            lr=opt['lr'], betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(itertools.chain(self.netD_A.parameters(), self.netD_B.parameters()),
                                            lr=opt['lr'], betas=(0.5, 0.999))

    def set_requires_grad(self, nets, requires_grad=False):
        for net in nets:
            for param in net.parameters():
                param.requires_grad = requires_grad

    def set_input(self, input):
        self.real_A = input['A']
        self.real_B = input['B']

    def forward(self):
        self.fake_B = self.netG_A(self.real_A)
        self.rec_A = self.netG_B(self.fake_B)
        self.fake_A = self.netG_B(self.real_B)
        self.rec_B = self.netG_A(self.fake_A)

    def backward_D_basic(self, netD, real, fake):
        pred_real = netD(real)
        loss_D_real = self.criterionGAN(pred_real, True)
        pred_fake = netD(fake)  # expect: GG105
        loss_D_fake = self.criterionGAN(pred_fake, False)
        loss_D = (loss_D_real + loss_D_fake) * 0.5
        loss_D.backward()  # also: GG105
        return loss_D

    def backward_D_A(self):
        fake_B = self.fake_B_pool.query(self.fake_B)
        self.loss_D_A = self.backward_D_basic(self.netD_A, self.real_B, fake_B)

    def backward_D_B(self):
        fake_A = self.fake_A_pool.query(self.fake_A)
        self.loss_D_B = self.backward_D_basic(self.netD_B, self.real_A, fake_A)

    def backward_G(self):
        lambda_idt = self.opt['lambda_identity']
        lambda_A = self.opt['lambda_A']
        lambda_B = self.opt['lambda_B']
        if lambda_idt > 0:
            self.idt_A = self.netG_A(self.real_B)
            self.loss_idt_A = self.criterionIdt(self.idt_A, self.real_B) * lambda_B * lambda_idt
            self.idt_B = self.netG_B(self.real_A)
            self.loss_idt_B = self.criterionIdt(self.idt_B, self.real_A) * lambda_A * lambda_idt
        else:
            self.loss_idt_A = 0
            self.loss_idt_B = 0
        self.loss_G_A = self.criterionGAN(self.netD_A(self.fake_B), True)
        self.loss_G_B = self.criterionGAN(self.netD_B(self.fake_A), True)
        self.loss_cycle_A = self.criterionCycle(self.rec_A, self.real_A) * lambda_A
        self.loss_cycle_B = self.criterionCycle(self.rec_B, self.real_B) * lambda_B
        self.loss_G = self.loss_G_A + self.loss_G_B + self.loss_cycle_A + self.loss_cycle_B + self.loss_idt_A + self.loss_idt_B
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad([self.netD_A, self.netD_B], False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.set_requires_grad([self.netD_A, self.netD_B], True)
        self.optimizer_D.zero_grad()
        self.backward_D_A()
        self.backward_D_B()
        self.optimizer_D.step()


def main():
    torch.manual_seed(0)
    opt = {'pool_size': 0, 'gan_mode': 'lsgan', 'lr': 2e-4, 'lambda_identity': 0.5, 'lambda_A': 10.0, 'lambda_B': 10.0}
    model = CycleGANModel(opt)
    for epoch in range(2):
        for i in range(2):
            data = {'A': torch.randn(2, 3, 8, 8), 'B': torch.randn(2, 3, 8, 8)}
            model.set_input(data)
            model.optimize_parameters()
            print(epoch, i, float(model.loss_G), float(model.loss_D_A))


if __name__ == '__main__':
    main()
