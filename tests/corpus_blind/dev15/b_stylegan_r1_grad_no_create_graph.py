# corpus: Style-based GAN trainer whose R1 branch takes grad(real_scores.sum(), real_image) without create_graph=True, so grad_penalty has no graph back to the discriminator and grad_penalty.backward() fails.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/rosinality/style-based-gan-pytorch/issues/84
import math
import random

import torch
from torch import nn, optim
from torch.nn import functional as F
from torch.autograd import grad

code_size = 8
n_critic = 1


class StyledGenerator(nn.Module):
    def __init__(self, code_size):
        super().__init__()
        self.style = nn.Sequential(nn.Linear(code_size, code_size), nn.LeakyReLU(0.2))
        self.generator = nn.Sequential(nn.Linear(code_size, 3 * 8 * 8), nn.Tanh())

    def forward(self, input, step=0, alpha=-1):
        w = self.style(input)
        return self.generator(w).view(-1, 3, 8, 8)


class Discriminator(nn.Module):
    def __init__(self, from_rgb_activate=True):
        super().__init__()
        self.from_rgb = nn.Conv2d(3, 4, 1)
        self.activate = from_rgb_activate
        self.linear = nn.Linear(4 * 8 * 8, 1)

    def forward(self, input, step=0, alpha=-1):
        out = self.from_rgb(input)
        if self.activate:
            out = F.leaky_relu(out, 0.2)
        return self.linear(out.view(out.size(0), -1))


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def accumulate(model1, model2, decay=0.999):
    par1 = dict(model1.named_parameters())
    par2 = dict(model2.named_parameters())
    for k in par1.keys():
        par1[k].data.mul_(decay).add_(par2[k].data, alpha=1 - decay)


def sample_data(batch_size, image_size=8):
    while True:
        yield torch.randn(batch_size, 3, image_size, image_size)


def train(args, generator, discriminator, g_running, g_optimizer, d_optimizer):
    step = int(math.log2(args['init_size'])) - 2
    data_loader = sample_data(args['batch_default'])

    requires_grad(generator, False)
    requires_grad(discriminator, True)

    disc_loss_val = 0
    gen_loss_val = 0
    grad_loss_val = 0
    alpha = 1

    for i in range(args['iters']):
        discriminator.zero_grad()

        real_image = next(data_loader)
        b_size = real_image.size(0)

        if args['loss'] == 'r1':
            real_image.requires_grad = True
            real_scores = discriminator(real_image, step=step, alpha=alpha)
            real_predict = F.softplus(-real_scores).mean()
            real_predict.backward(retain_graph=True)

            grad_real = grad(outputs=real_scores.sum(), inputs=real_image)[0]  # expect: GG202
            grad_penalty = (grad_real.view(grad_real.size(0), -1).norm(2, dim=1) ** 2).mean()
            grad_penalty = 10 / 2 * grad_penalty
            grad_penalty.backward()  # also: GG202
            grad_loss_val = grad_penalty.item()

        gen_in1, gen_in2 = torch.randn(2, b_size, code_size).chunk(2, 0)
        gen_in1 = gen_in1.squeeze(0)
        gen_in2 = gen_in2.squeeze(0)

        fake_image = generator(gen_in1, step=step, alpha=alpha)
        fake_predict = discriminator(fake_image, step=step, alpha=alpha)
        fake_predict = F.softplus(fake_predict).mean()
        fake_predict.backward()
        disc_loss_val = (real_predict + fake_predict).item()

        d_optimizer.step()

        if (i + 1) % n_critic == 0:
            generator.zero_grad()
            requires_grad(generator, True)
            requires_grad(discriminator, False)

            fake_image = generator(gen_in2, step=step, alpha=alpha)
            predict = discriminator(fake_image, step=step, alpha=alpha)
            loss = F.softplus(-predict).mean()
            gen_loss_val = loss.item()

            loss.backward()
            g_optimizer.step()
            accumulate(g_running, generator)

            requires_grad(generator, False)
            requires_grad(discriminator, True)

        print(f'G: {gen_loss_val:.3f}; D: {disc_loss_val:.3f}; Grad: {grad_loss_val:.3f}')


def main():
    torch.manual_seed(0)
    random.seed(0)
    args = {'init_size': 8, 'batch_default': 4, 'loss': 'r1', 'iters': 3, 'lr': 0.001}
    generator = StyledGenerator(code_size)
    discriminator = Discriminator()
    g_running = StyledGenerator(code_size)
    g_running.train(False)

    g_optimizer = optim.Adam(generator.generator.parameters(), lr=args['lr'], betas=(0.0, 0.99))
    g_optimizer.add_param_group({'params': generator.style.parameters(), 'lr': args['lr'] * 0.01, 'mult': 0.01})
    d_optimizer = optim.Adam(discriminator.parameters(), lr=args['lr'], betas=(0.0, 0.99))

    accumulate(g_running, generator, 0)
    train(args, generator, discriminator, g_running, g_optimizer, d_optimizer)


if __name__ == '__main__':
    main()
