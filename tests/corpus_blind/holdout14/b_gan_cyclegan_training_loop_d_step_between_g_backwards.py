# corpus: CycleGAN training_loop (Udacity notebook shape) where the user reuses the discriminator scores of the fake images for both the D and G losses: d_x_loss is backpropagated with retain_graph=True and d_x_optimizer.step() updates D_X in place before g_total_loss, whose graph still runs through the pre-step D_X weights, is backpropagated
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/udacity/deep-learning-v2-pytorch/issues/300
import torch
import torch.nn as nn
import torch.optim as optim


def conv(in_ch, out_ch, k=4, stride=2, padding=1, batch_norm=True):
    layers = [nn.Conv2d(in_ch, out_ch, k, stride, padding, bias=False)]
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_ch))
    return nn.Sequential(*layers)


class Discriminator(nn.Module):
    def __init__(self, conv_dim=8):
        super().__init__()
        self.conv1 = conv(3, conv_dim, batch_norm=False)
        self.conv2 = conv(conv_dim, conv_dim * 2)
        self.conv3 = nn.Conv2d(conv_dim * 2, 1, 4, 1, 1)

    def forward(self, x):
        out = torch.relu(self.conv1(x))
        out = torch.relu(self.conv2(out))
        return self.conv3(out)


class CycleGenerator(nn.Module):
    def __init__(self, conv_dim=8):
        super().__init__()
        self.enc = nn.Sequential(conv(3, conv_dim), nn.ReLU())
        self.dec = nn.Sequential(nn.ConvTranspose2d(conv_dim, 3, 4, 2, 1), nn.Tanh())

    def forward(self, x):
        return self.dec(self.enc(x))


def real_mse_loss(d_out):
    return torch.mean((d_out - 1) ** 2)


def fake_mse_loss(d_out):
    return torch.mean(d_out ** 2)


def cycle_consistency_loss(real_im, reconstructed_im, lambda_weight):
    return lambda_weight * torch.mean(torch.abs(real_im - reconstructed_im))


def create_model():
    G_XtoY, G_YtoX = CycleGenerator(), CycleGenerator()
    D_X, D_Y = Discriminator(), Discriminator()
    return G_XtoY, G_YtoX, D_X, D_Y


def training_loop(models, dataloader_X, dataloader_Y, n_epochs=2):
    G_XtoY, G_YtoX, D_X, D_Y = models
    g_params = list(G_XtoY.parameters()) + list(G_YtoX.parameters())
    g_optimizer = optim.Adam(g_params, 2e-4, [0.5, 0.999])
    d_x_optimizer = optim.Adam(D_X.parameters(), 2e-4, [0.5, 0.999])
    d_y_optimizer = optim.Adam(D_Y.parameters(), 2e-4, [0.5, 0.999])
    losses = []
    for epoch in range(1, n_epochs + 1):
        for images_X, images_Y in zip(dataloader_X, dataloader_Y):
            # fakes and their discriminator scores, shared by the D and G losses
            fake_X = G_YtoX(images_Y)
            fake_Y = G_XtoY(images_X)
            d_fake_X = D_X(fake_X)
            d_fake_Y = D_Y(fake_Y)

            d_x_optimizer.zero_grad()
            d_x_loss = real_mse_loss(D_X(images_X)) + fake_mse_loss(d_fake_X)
            d_x_loss.backward(retain_graph=True)
            d_x_optimizer.step()  # expect: GG111

            d_y_optimizer.zero_grad()
            d_y_loss = real_mse_loss(D_Y(images_Y)) + fake_mse_loss(d_fake_Y)
            d_y_loss.backward(retain_graph=True)
            d_y_optimizer.step()

            g_optimizer.zero_grad()
            g_YtoX_loss = real_mse_loss(d_fake_X)
            reconstructed_Y = G_XtoY(fake_X)
            g_XtoY_loss = real_mse_loss(d_fake_Y)
            reconstructed_X = G_YtoX(fake_Y)
            g_total_loss = (g_YtoX_loss + g_XtoY_loss
                            + cycle_consistency_loss(images_Y, reconstructed_Y, 10)
                            + cycle_consistency_loss(images_X, reconstructed_X, 10))
            g_total_loss.backward()  # also: GG111
            g_optimizer.step()
            losses.append((d_x_loss.item(), d_y_loss.item(), g_total_loss.item()))
        print(f"Epoch [{epoch:5d}/{n_epochs:5d}] | d_X_loss: {losses[-1][0]:6.4f} | "
              f"d_Y_loss: {losses[-1][1]:6.4f} | g_total_loss: {losses[-1][2]:6.4f}")
    return losses


def main():
    torch.manual_seed(0)
    dataloader_X = [torch.randn(4, 3, 16, 16) for _ in range(3)]
    dataloader_Y = [torch.randn(4, 3, 16, 16) for _ in range(3)]
    training_loop(create_model(), dataloader_X, dataloader_Y)


if __name__ == "__main__":
    main()
