# corpus: pix2pix-based pedestrian synthesis with an image discriminator and a person discriminator; backward_D_person feeds the non-detached crop, but forward() rebuilds fake_B before every phase and each optimizer zeroes its grads first (correct)
# source: https://github.com/yifanjiang19/Pedestrian-Synthesis-GAN/issues/32
import argparse
from collections import OrderedDict

import torch
import torch.nn as nn


class GANLoss(nn.Module):
    def __init__(self, use_lsgan=True):
        super().__init__()
        self.loss = nn.MSELoss() if use_lsgan else nn.BCEWithLogitsLoss()

    def __call__(self, prediction, target_is_real):
        target = torch.ones_like(prediction) if target_is_real else torch.zeros_like(prediction)
        return self.loss(prediction, target)


def define_G(input_nc, output_nc, ngf):
    return nn.Sequential(
        nn.Conv2d(input_nc, ngf, 3, 1, 1), nn.BatchNorm2d(ngf), nn.ReLU(True),
        nn.Conv2d(ngf, output_nc, 3, 1, 1), nn.Tanh(),
    )


def define_D(input_nc, ndf):
    return nn.Sequential(
        nn.Conv2d(input_nc, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf, 1, 3, 1, 1),
    )


class Pix2PixModel:
    def __init__(self, opt):
        self.opt = opt
        self.input_A = torch.zeros(opt.batchSize, opt.input_nc, opt.fineSize, opt.fineSize)
        self.input_B = torch.zeros(opt.batchSize, opt.output_nc, opt.fineSize, opt.fineSize)
        self.netG = define_G(opt.input_nc, opt.output_nc, opt.ngf)
        self.netD_image = define_D(opt.input_nc + opt.output_nc, opt.ndf)
        self.netD_person = define_D(opt.output_nc, opt.ndf)
        self.criterionGAN_image = GANLoss()
        self.criterionGAN_person = GANLoss()
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizer_D_image = torch.optim.Adam(self.netD_image.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
        self.optimizer_D_person = torch.optim.Adam(self.netD_person.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

    def set_input(self, input):
        self.bbox = input["bbox"]
        self.input_A.resize_(input["A"].size()).copy_(input["A"])
        self.input_B.resize_(input["B"].size()).copy_(input["B"])

    def forward(self):
        self.real_A = self.input_A
        self.fake_B = self.netG(self.real_A)
        self.real_B = self.input_B
        y, x, w, h = self.bbox
        self.person_crop_real = self.real_B[:, :, y:h, x:w]
        self.person_crop_fake = self.fake_B[:, :, y:h, x:w]

    def backward_D_image(self):
        # stop backprop to the generator by detaching fake_B
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        self.pred_fake = self.netD_image(fake_AB.detach())
        self.loss_D_image_fake = self.criterionGAN_image(self.pred_fake, False)
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        self.pred_real = self.netD_image(real_AB)
        self.loss_D_image_real = self.criterionGAN_image(self.pred_real, True)
        self.loss_D_image = (self.loss_D_image_fake + self.loss_D_image_real) * 0.5
        self.loss_D_image.backward()

    def backward_D_person(self):
        self.person_fake = self.netD_person(self.person_crop_fake)
        self.loss_D_person_fake = self.criterionGAN_person(self.person_fake, False)
        self.person_real = self.netD_person(self.person_crop_real)
        self.loss_D_person_real = self.criterionGAN_person(self.person_real, True)
        self.loss_D_person = (self.loss_D_person_fake + self.loss_D_person_real) * 0.5
        self.loss_D_person.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake_image = self.netD_image(fake_AB)
        self.loss_G_GAN_image = self.criterionGAN_image(pred_fake_image, True)
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.opt.lambda_A
        pred_fake_person = self.netD_person(self.person_crop_fake)
        self.loss_G_GAN_person = self.criterionGAN_person(pred_fake_person, True)
        self.loss_G = self.loss_G_GAN_image + self.loss_G_L1 + self.loss_G_GAN_person
        self.loss_G.backward()

    def optimize_parameters(self, only_d):
        self.forward()
        self.optimizer_D_image.zero_grad()
        self.backward_D_image()
        self.optimizer_D_image.step()

        self.forward()
        self.optimizer_D_person.zero_grad()
        self.backward_D_person()
        self.optimizer_D_person.step()

        if only_d is False:
            self.forward()
            self.optimizer_G.zero_grad()
            self.backward_G()
            self.optimizer_G.step()

    def get_current_errors(self):
        return OrderedDict([("G_GAN_image", self.loss_G_GAN_image.item()),
                            ("G_GAN_person", self.loss_G_GAN_person.item()),
                            ("G_L1", self.loss_G_L1.item()),
                            ("D_image_real", self.loss_D_image_real.item()),
                            ("D_person_fake", self.loss_D_person_fake.item())])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batchSize", type=int, default=2)
    parser.add_argument("--fineSize", type=int, default=16)
    parser.add_argument("--input_nc", type=int, default=3)
    parser.add_argument("--output_nc", type=int, default=3)
    parser.add_argument("--ngf", type=int, default=8)
    parser.add_argument("--ndf", type=int, default=8)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--beta1", type=float, default=0.5)
    parser.add_argument("--lambda_A", type=float, default=100.0)
    parser.add_argument("--iters", type=int, default=3)
    opt = parser.parse_args([])
    torch.manual_seed(0)
    model = Pix2PixModel(opt)
    for i in range(opt.iters):
        data = {"A": torch.randn(2, 3, 16, 16), "B": torch.randn(2, 3, 16, 16), "bbox": (4, 4, 12, 12)}
        model.set_input(data)
        model.optimize_parameters(only_d=(i == 0))
        if i > 0:
            print(i, dict(model.get_current_errors()))
    g_weight = model.netG[0].weight
    print("generator receives gradient:", g_weight.grad is not None and g_weight.grad.abs().sum().item() > 0)


if __name__ == "__main__":
    main()
