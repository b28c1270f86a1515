# corpus: VAE-GAN on MNIST-sized images with the fix for the reported inplace error: after the VAE step the reconstruction is recomputed with the updated weights before the adversarial VAE loss, instead of reusing the retained pre-step graph.
# source: https://github.com/YixinChen-AI/CVAE-GAN-zoos-PyTorch-Beginner/issues/1
import torch
import torch.nn as nn
import torch.optim as optim

nz = 8
device = 'cpu'


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1), nn.BatchNorm2d(8), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1), nn.BatchNorm2d(16), nn.LeakyReLU(0.2, inplace=True))
        self.encoder_fc1 = nn.Linear(16 * 4 * 4, nz)
        self.encoder_fc2 = nn.Linear(16 * 4 * 4, nz)
        self.decoder_fc = nn.Linear(nz, 16 * 4 * 4)
        self.decoder = nn.Sequential(nn.ConvTranspose2d(16, 8, 4, 2, 1), nn.ReLU(inplace=True),
                                     nn.ConvTranspose2d(8, 1, 4, 2, 1), nn.Sigmoid())

    def noise_reparameterize(self, mean, logvar):
        eps = torch.randn(mean.shape).to(device)
        return mean + eps * torch.exp(logvar)

    def forward(self, x):
        out1, out2 = self.encoder(x), self.encoder(x)
        mean = self.encoder_fc1(out1.view(out1.shape[0], -1))
        logstd = self.encoder_fc2(out2.view(out2.shape[0], -1))
        z = self.noise_reparameterize(mean, logstd)
        out3 = self.decoder_fc(z).view(z.shape[0], 16, 4, 4)
        return self.decoder(out3), mean, logstd


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.dis = nn.Sequential(nn.Conv2d(1, 8, 3, stride=1, padding=1), nn.LeakyReLU(0.2, True), nn.MaxPool2d((2, 2)),
                                 nn.Conv2d(8, 16, 3, stride=1, padding=1), nn.LeakyReLU(0.2, True), nn.MaxPool2d((2, 2)))
        self.fc = nn.Sequential(nn.Linear(4 * 4 * 16, 32), nn.LeakyReLU(0.2, True), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, input):
        x = self.dis(input)
        return self.fc(x.view(x.size(0), -1)).squeeze(1)


def loss_function(recon_x, x, mean, logstd, MSECriterion):
    MSE = MSECriterion(recon_x, x)
    var = torch.pow(torch.exp(logstd), 2)
    KLD = -0.5 * torch.sum(1 + torch.log(var) - torch.pow(mean, 2) - var)
    return MSE + KLD


def main():
    torch.manual_seed(88)
    vae, D = VAE().to(device), Discriminator().to(device)
    criterion, MSECriterion = nn.BCELoss(), nn.MSELoss()
    optimizerD = optim.Adam(D.parameters(), lr=0.0001)
    optimizerVAE = optim.Adam(vae.parameters(), lr=0.0001)
    dataloader = [(torch.rand(8, 1, 16, 16), torch.zeros(8)) for _ in range(3)]
    for epoch in range(2):
        for i, (data, label) in enumerate(dataloader, 0):
            # (1) Update D network
            D.zero_grad()
            batch_size = data.shape[0]
            output = D(data)
            real_label = torch.ones(batch_size)
            fake_label = torch.zeros(batch_size)
            errD_real = criterion(output, real_label)
            errD_real.backward()
            z = torch.randn(batch_size, nz)
            fake_data = vae.decoder(vae.decoder_fc(z).view(z.shape[0], 16, 4, 4))
            output = D(fake_data)
            errD_fake = criterion(output, fake_label)
            errD_fake.backward()
            errD = errD_real + errD_fake
            optimizerD.step()
            # (2) Update the VAE
            recon_data, mean, logstd = vae(data)
            vae.zero_grad()
            vae_loss = loss_function(recon_data, data, mean, logstd, MSECriterion)
            vae_loss.backward()
            optimizerVAE.step()
            # (3) Update the VAE decoder as generator: maximize log(D(G(z)))
            vae.zero_grad()
            recon_data, mean, logstd = vae(data)
            output = D(recon_data)
            errVAE = criterion(output, real_label)
            errVAE.backward()
            optimizerVAE.step()
            print('[%d][%d] Loss_D: %.4f Loss_VAE: %.4f Loss_G: %.4f' % (epoch, i, errD.item(), vae_loss.item(),
                                                                          errVAE.item()))


if __name__ == "__main__":
    main()
