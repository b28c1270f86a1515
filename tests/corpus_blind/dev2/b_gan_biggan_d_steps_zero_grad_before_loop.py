# corpus: BigGAN-style training closure zeroes D.optim only once before the num_D_steps loop, so every later D step applies the gradients of all previous D steps as well
# source: https://github.com/ajbrock/BigGAN-PyTorch/issues/25
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, dim_z=8, n_classes=3, out=16):
        super().__init__()
        self.shared = nn.Embedding(n_classes, 4)
        self.net = nn.Sequential(nn.Linear(dim_z + 4, 32), nn.ReLU(), nn.Linear(32, out), nn.Tanh())
        self.optim = torch.optim.Adam(self.parameters(), lr=1e-4, betas=(0.0, 0.999))

    def forward(self, z, y):
        return self.net(torch.cat([z, y], 1))


class Discriminator(nn.Module):
    def __init__(self, n_classes=3, inp=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(inp, 32), nn.ReLU(), nn.Linear(32, 1))
        self.embed = nn.Embedding(n_classes, 32)
        self.optim = torch.optim.Adam(self.parameters(), lr=4e-4, betas=(0.0, 0.999))

    def forward(self, x, y):
        h = self.net[1](self.net[0](x))
        return self.net[2](h) + (self.embed(y) * h).sum(1, keepdim=True)


class G_D(nn.Module):
    def __init__(self, G, D):
        super().__init__()
        self.G, self.D = G, D

    def forward(self, z, gy, x=None, dy=None, train_G=False):
        with torch.set_grad_enabled(train_G):
            G_z = self.G(z, self.G.shared(gy))
        if x is None:
            return self.D(G_z, gy)
        D_out = self.D(torch.cat([G_z, x], 0), torch.cat([gy, dy], 0))
        return torch.split(D_out, [G_z.shape[0], x.shape[0]])


def loss_hinge_dis(dis_fake, dis_real):
    return torch.mean(F.relu(1. - dis_real)), torch.mean(F.relu(1. + dis_fake))


def loss_hinge_gen(dis_fake):
    return -torch.mean(dis_fake)


def GAN_training_function(G, D, GD, z_, y_, config):
    def train(x, y):
        G.optim.zero_grad()
        D.optim.zero_grad()  # expect: GG201
        x = torch.split(x, config['batch_size'])
        y = torch.split(y, config['batch_size'])
        counter = 0
        for step_index in range(config['num_D_steps']):
            for accumulation_index in range(config['num_D_accumulations']):
                z_.normal_()
                y_.random_(0, config['n_classes'])
                D_fake, D_real = GD(z_[:config['batch_size']], y_[:config['batch_size']],
                                    x[counter], y[counter], train_G=False)
                D_loss_real, D_loss_fake = loss_hinge_dis(D_fake, D_real)
                D_loss = (D_loss_real + D_loss_fake) / float(config['num_D_accumulations'])
                D_loss.backward()
                counter += 1
            D.optim.step()  # also: GG201

        G.optim.zero_grad()
        for accumulation_index in range(config['num_G_accumulations']):
            z_.normal_()
            y_.random_(0, config['n_classes'])
            D_fake = GD(z_, y_, train_G=True)
            G_loss = loss_hinge_gen(D_fake) / float(config['num_G_accumulations'])
            G_loss.backward()
        G.optim.step()
        return {'G_loss': float(G_loss.item()), 'D_loss_real': float(D_loss_real.item()),
                'D_loss_fake': float(D_loss_fake.item())}
    return train


def run(config):
    G, D = Generator(n_classes=config['n_classes']), Discriminator(n_classes=config['n_classes'])
    GD = G_D(G, D)
    z_ = torch.zeros(config['batch_size'], 8)
    y_ = torch.zeros(config['batch_size'], dtype=torch.long)
    train = GAN_training_function(G, D, GD, z_, y_, config)
    n = config['batch_size'] * config['num_D_steps'] * config['num_D_accumulations']
    history = []
    for itr in range(3):
        x = torch.randn(n, 16)
        y = torch.randint(0, config['n_classes'], (n,))
        history.append(train(x, y))
    return G, D, history


if __name__ == '__main__':
    torch.manual_seed(0)
    cfg = {'batch_size': 4, 'num_D_steps': 2, 'num_D_accumulations': 1,
           'num_G_accumulations': 1, 'n_classes': 3}
    run(cfg)
