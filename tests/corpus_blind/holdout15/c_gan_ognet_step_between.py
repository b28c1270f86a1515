# corpus: OGNet one-class anomaly detector (generator = denoising autoencoder, discriminator = CNN) steps the discriminator optimizer after d_loss.backward and only then backpropagates the generator loss through the same discriminator forward.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/xaggi/OGNet/issues/8
import torch
import torch.nn as nn
import torch.optim as optim


class g_net(nn.Module):
    def __init__(self):
        super(g_net, self).__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(True))
        self.decoder = nn.Sequential(nn.Conv2d(8, 1, 3, padding=1), nn.Tanh())

    def forward(self, x):
        return self.decoder(self.encoder(x))


class d_net(nn.Module):
    def __init__(self):
        super(d_net, self).__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                                      nn.Conv2d(8, 1, 4))
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        return self.sigmoid(self.features(x).view(-1))


def gaussian(ins, mean, stddev):
    return ins + torch.randn_like(ins) * stddev + mean


class OGNet(nn.Module):
    def __init__(self, dataloader, batch_size=4):
        super(OGNet, self).__init__()
        self.dataloader = dataloader
        self.batch_size = batch_size
        self.g = g_net()
        self.d = d_net()
        self.sigma_noise = 0.9
        self.adversarial_loss = nn.BCELoss()
        self.recon_loss = nn.MSELoss()

    def train(self, epochs=1):
        self.g.train()
        self.d.train()
        g_optim = optim.Adam(self.g.parameters(), lr=1e-3)
        d_optim = optim.Adam(self.d.parameters(), lr=1e-4)
        fake = torch.ones([self.batch_size])
        valid = torch.zeros([self.batch_size])
        for num_epoch in range(epochs):
            for i, (input, gt_label) in enumerate(self.dataloader):
                g_optim.zero_grad()
                d_optim.zero_grad()
                input_w_noise = gaussian(input, 0, self.sigma_noise ** 2)
                g_output = self.g(input_w_noise)
                d_fake_output = self.d(g_output)
                d_real_output = self.d(input)
                d_loss = self.adversarial_loss(d_real_output, valid) + self.adversarial_loss(d_fake_output, fake)
                g_loss = self.adversarial_loss(d_fake_output, valid) + self.recon_loss(g_output, input)
                d_loss.backward(retain_graph=True)
                d_optim.step()  # expect: GG111
                g_loss.backward()  # also: GG111
                g_optim.step()
                print("epoch", num_epoch, "iter", i, "d_loss", round(d_loss.item(), 4))


def main():
    torch.manual_seed(0)
    loader = [(torch.rand(4, 1, 8, 8) * 2 - 1, torch.zeros(4)) for _ in range(2)]
    model = OGNet(loader)
    model.train(epochs=1)


if __name__ == "__main__":
    main()
