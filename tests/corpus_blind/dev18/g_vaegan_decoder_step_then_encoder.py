# corpus: VAE-GAN with separate encoder/decoder/discriminator optimizers; the decoder step runs before the encoder loss (which shares the decoder graph) is backpropagated, so the encoder backward hits decoder weights modified in place.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/hui-po-wang/Pytorch-VAE-GAN/issues/5
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class Encoder(nn.Module):
    def __init__(self, input_channels, output_channels, representation_size=8):
        super(Encoder, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(input_channels, representation_size, 5, stride=2, padding=2),
            nn.BatchNorm2d(representation_size),
            nn.ReLU(),
            nn.Conv2d(representation_size, representation_size * 2, 5, stride=2, padding=2),
            nn.BatchNorm2d(representation_size * 2),
            nn.ReLU())
        dim = representation_size * 2 * 4 * 4
        self.mean = nn.Sequential(nn.Linear(dim, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, output_channels))
        self.logvar = nn.Sequential(nn.Linear(dim, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, output_channels))

    def forward(self, x):
        batch_size = x.size()[0]
        hidden_representation = self.features(x)
        mean = self.mean(hidden_representation.view(batch_size, -1))
        logvar = self.logvar(hidden_representation.view(batch_size, -1))
        return mean, logvar


class Decoder(nn.Module):
    def __init__(self, input_size, representation_size=(16, 4, 4)):
        super(Decoder, self).__init__()
        self.representation_size = representation_size
        dim = representation_size[0] * representation_size[1] * representation_size[2]
        self.preprocess = nn.Sequential(nn.Linear(input_size, dim), nn.BatchNorm1d(dim), nn.ReLU())
        self.deconv1 = nn.ConvTranspose2d(representation_size[0], 8, 4, stride=2, padding=1)
        self.act1 = nn.Sequential(nn.BatchNorm2d(8), nn.ReLU())
        self.deconv2 = nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1)
        self.activation = nn.Tanh()

    def forward(self, code):
        preprocessed_codes = self.preprocess(code)
        preprocessed_codes = preprocessed_codes.view(-1, *self.representation_size)
        output = self.act1(self.deconv1(preprocessed_codes))
        return self.activation(self.deconv2(output))


class VAE_GAN_Generator(nn.Module):
    def __init__(self, input_channels, hidden_size):
        super(VAE_GAN_Generator, self).__init__()
        self.hidden_size = hidden_size
        self.encoder = Encoder(input_channels, hidden_size)
        self.decoder = Decoder(hidden_size)

    def forward(self, x):
        batch_size = x.size()[0]
        mean, logvar = self.encoder(x)
        std = logvar.mul(0.5).exp_()
        reparametrized_noise = torch.randn((batch_size, self.hidden_size))
        reparametrized_noise = mean + std * reparametrized_noise
        rec_images = self.decoder(reparametrized_noise)
        return mean, logvar, rec_images


class Discriminator(nn.Module):
    def __init__(self, input_channels):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Conv2d(input_channels, 8, 5, stride=2, padding=2), nn.LeakyReLU(0.2),
            nn.Conv2d(8, 16, 5, stride=2, padding=2), nn.BatchNorm2d(16), nn.LeakyReLU(0.2))
        self.lth_features = nn.Sequential(nn.Linear(16 * 4 * 4, 32), nn.LeakyReLU(0.2))
        self.sigmoid_output = nn.Sequential(nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, x):
        features = self.main(x)
        lth_rep = self.lth_features(features.view(x.size(0), -1))
        return self.sigmoid_output(lth_rep).view(-1)

    def similarity(self, x):
        features = self.main(x)
        return self.lth_features(features.view(x.size(0), -1))


def main():
    torch.manual_seed(0)
    input_channels, hidden_size, lr = 3, 16, 3e-4
    beta, alpha, gamma = 5, 0.1, 15
    G = VAE_GAN_Generator(input_channels, hidden_size)
    D = Discriminator(input_channels)
    criterion = nn.BCELoss()
    opt_enc = optim.RMSprop(G.encoder.parameters(), lr=lr)
    opt_dec = optim.RMSprop(G.decoder.parameters(), lr=lr)
    opt_dis = optim.RMSprop(D.parameters(), lr=lr * alpha)

    train_loader = [(torch.randn(8, 3, 16, 16), 0) for _ in range(3)]
    for epoch in range(2):
        D_list, g_loss_list, rec_loss_list, prior_loss_list = [], [], [], []
        for data, _ in train_loader:
            batch_size = data.size()[0]
            ones_label = torch.ones(batch_size)
            zeros_label = torch.zeros(batch_size)
            mean, logvar, rec_enc = G(data)
            rec_noise = G.decoder(torch.randn(batch_size, hidden_size))

            # train discriminator
            errD_real = criterion(D(data), ones_label)
            errD_rec_enc = criterion(D(rec_enc), zeros_label)
            errD_rec_noise = criterion(D(rec_noise), zeros_label)
            dis_img_loss = errD_real + errD_rec_enc + errD_rec_noise
            D_list.append(dis_img_loss.item())
            opt_dis.zero_grad()
            dis_img_loss.backward(retain_graph=True)
            opt_dis.step()

            # train decoder
            errD_real = criterion(D(data), ones_label)
            errD_rec_enc = criterion(D(rec_enc), zeros_label)
            errD_rec_noise = criterion(D(rec_noise), zeros_label)
            similarity_rec_enc = D.similarity(rec_enc)
            similarity_data = D.similarity(data)
            gen_img_loss = -(errD_real + errD_rec_enc + errD_rec_noise)
            g_loss_list.append(gen_img_loss.item())
            rec_loss = ((similarity_rec_enc - similarity_data) ** 2).mean()
            rec_loss_list.append(rec_loss.item())
            err_dec = gamma * rec_loss + gen_img_loss
            opt_dec.zero_grad()
            err_dec.backward(retain_graph=True)
            opt_dec.step()  # expect: GG111

            # train encoder
            prior_loss = 1 + logvar - mean.pow(2) - logvar.exp()
            prior_loss = (-0.5 * torch.sum(prior_loss)) / torch.numel(mean.data)
            prior_loss_list.append(prior_loss.item())
            err_enc = prior_loss + beta * rec_loss
            opt_enc.zero_grad()
            err_enc.backward()  # also: GG111
            opt_enc.step()
        print('[%d]: Loss_D:%.4f, Loss_G:%.4f, rec_loss:%.4f, prior_loss:%.4f'
              % (epoch, np.mean(D_list), np.mean(g_loss_list), np.mean(rec_loss_list), np.mean(prior_loss_list)))


if __name__ == "__main__":
    main()
