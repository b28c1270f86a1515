# corpus: "Inside Deep Learning" GAN loop: the discriminator step uses D(fake.detach()), then the same non-detached fake is scored again by the freshly updated D for the generator step; losses are logged with .item(), so every backward is valid.
# source: https://qiita.com/bear_montblanc/items/8e3abef61a4cd482870c
import torch
import torch.nn as nn

latent_d = 16
batch_size = 8
real_label, fake_label = 1, 0


def simpleGAN(latent_d, neurons, out_shape, sigmoid=False, leak=0.2):
    layers = [nn.Linear(latent_d, neurons), nn.LeakyReLU(leak),
              nn.Linear(neurons, neurons), nn.LeakyReLU(leak),
              nn.Linear(neurons, abs(int(torch.prod(torch.tensor(out_shape)))))]
    if sigmoid:
        layers.append(nn.Sigmoid())
    return nn.Sequential(*layers)


def main():
    torch.manual_seed(0)
    G = simpleGAN(latent_d, 32, (1, 4, 4))
    D = nn.Sequential(simpleGAN(16, 32, (1,)))
    loss_func = nn.BCEWithLogitsLoss()
    optimizerD = torch.optim.AdamW(D.parameters())
    optimizerG = torch.optim.AdamW(G.parameters())
    train_loader = [(torch.randn(batch_size, 16), torch.zeros(batch_size)) for _ in range(4)]

    G_losses = []
    D_losses = []
    for epoch in range(2):
        for data, class_label in train_loader:
            real_data = data
            y_real = torch.full((batch_size, 1), real_label, dtype=torch.float32)
            y_fake = torch.full((batch_size, 1), fake_label, dtype=torch.float32)

            # Discriminator step
            D.zero_grad()
            errD_real = loss_func(D(real_data), y_real)
            errD_real.backward()
            z = torch.randn(batch_size, latent_d)
            fake = G(z)
            errD_fake = loss_func(D(fake.detach()), y_fake)
            errD_fake.backward()
            errD = errD_real + errD_fake
            optimizerD.step()

            # Generator step
            G.zero_grad()
            errG = loss_func(D(fake), y_real)
            errG.backward()
            optimizerG.step()

            G_losses.append(errG.item())
            D_losses.append(errD.item())
        print(epoch, sum(G_losses) / len(G_losses), sum(D_losses) / len(D_losses))


if __name__ == "__main__":
    main()
