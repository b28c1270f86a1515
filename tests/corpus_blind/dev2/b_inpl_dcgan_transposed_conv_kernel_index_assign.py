# corpus: DCGAN chapter demo writes a hand-made kernel into a ConvTranspose2d by indexing m.weight[...] = value outside no_grad before building and training the generator
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/YutaroOgawa/pytorch_advanced/issues/160
import torch
import torch.nn as nn


def transposed_conv_example():
    input = torch.tensor([[[[1., 1.], [2., 2.]]]])
    print("transposed convolution")
    m = nn.ConvTranspose2d(1, 1, 2, stride=1, bias=False)
    m.weight[0, 0, 0, 0] = 1  # expect: GG108
    m.weight[0, 0, 0, 1] = 2  # also: GG108
    m.weight[0, 0, 1, 0] = 3  # also: GG108
    m.weight[0, 0, 1, 1] = 4  # also: GG108
    return m(input)


class Generator(nn.Module):
    def __init__(self, z_dim=8, image_size=4):
        super(Generator, self).__init__()
        self.layer1 = nn.Sequential(
            nn.ConvTranspose2d(z_dim, image_size * 2, kernel_size=2, stride=1),
            nn.BatchNorm2d(image_size * 2),
            nn.ReLU(inplace=True))
        self.last = nn.Sequential(
            nn.ConvTranspose2d(image_size * 2, 1, kernel_size=4, stride=2, padding=1),
            nn.Tanh())

    def forward(self, z):
        return self.last(self.layer1(z))


class Discriminator(nn.Module):
    def __init__(self, image_size=4):
        super(Discriminator, self).__init__()
        self.layer1 = nn.Sequential(
            nn.Conv2d(1, image_size, kernel_size=2, stride=2),
            nn.LeakyReLU(0.1, inplace=True))
        self.last = nn.Conv2d(image_size, 1, kernel_size=2, stride=1)

    def forward(self, x):
        return self.last(self.layer1(x))


def train_model(G, D, num_epochs=2, batch_size=4, z_dim=8):
    g_optimizer = torch.optim.Adam(G.parameters(), 1e-4, [0.0, 0.9])
    d_optimizer = torch.optim.Adam(D.parameters(), 4e-4, [0.0, 0.9])
    criterion = nn.BCEWithLogitsLoss(reduction='mean')
    for epoch in range(num_epochs):
        imges = torch.randn(batch_size, 1, 4, 4)
        label_real = torch.full((batch_size,), 1.)
        label_fake = torch.full((batch_size,), 0.)
        d_out_real = D(imges)
        input_z = torch.randn(batch_size, z_dim).view(batch_size, z_dim, 1, 1)
        fake_images = G(input_z)
        d_out_fake = D(fake_images.detach())
        d_loss = criterion(d_out_real.view(-1), label_real) + criterion(d_out_fake.view(-1), label_fake)
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()

        d_out_fake = D(G(input_z))
        g_loss = criterion(d_out_fake.view(-1), label_real)
        g_optimizer.zero_grad()
        g_loss.backward()
        g_optimizer.step()
        print('epoch {} || D_Loss:{:.4f} || G_Loss:{:.4f}'.format(epoch, d_loss.item(), g_loss.item()))
    return G, D


if __name__ == "__main__":
    torch.manual_seed(0)
    print(transposed_conv_example())
    train_model(Generator(), Discriminator())
