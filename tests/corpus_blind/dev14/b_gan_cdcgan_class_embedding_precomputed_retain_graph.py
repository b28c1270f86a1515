# corpus: conditional DCGAN trainer (cDCGAN with one-hot class conditioning): the generator's class embeddings are computed once for all classes before the epoch loop and indexed per batch; the "backward through the graph a second time" error this caused was silenced with g_loss.backward(retain_graph=True), so every step backpropagates into the same stale embedding graph and the conditioning never reflects the updated embedding weights
# source: https://github.com/vasily789/adaptive-weighted-gans/issues/6
import torch
import torch.nn as nn

z_dim, label_dim, emb_dim, img_dim = 8, 4, 6, 16


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_embed = nn.Linear(label_dim, emb_dim)
        self.net = nn.Sequential(nn.Linear(z_dim + emb_dim, 32), nn.ReLU(), nn.Linear(32, img_dim), nn.Tanh())

    def forward(self, noise, label_cond):
        return self.net(torch.cat([noise, label_cond], dim=1))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(img_dim + label_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, x, label_onehot):
        return self.net(torch.cat([x, label_onehot], dim=1))


class CDCGANTrainer:
    def __init__(self, lr=2e-4):
        self.G, self.D = Generator(), Discriminator()
        self.G_opt = torch.optim.Adam(self.G.parameters(), lr=lr, betas=(0.5, 0.999))
        self.D_opt = torch.optim.Adam(self.D.parameters(), lr=lr, betas=(0.5, 0.999))
        self.criterion = nn.BCELoss()
        self.onehot = torch.eye(label_dim)

    def train(self, loader, epochs=2):
        class_cond = self.G.label_embed(self.onehot)  # expect: GG302
        history = []
        for epoch in range(epochs):
            for x_real, y_real in loader:
                batch_size = x_real.size(0)
                y_onehot = self.onehot[y_real]
                # (1) Update D network
                self.D_opt.zero_grad()
                real_validity = self.D(x_real, y_onehot).squeeze()
                d_real_loss = self.criterion(real_validity, torch.ones(batch_size))
                noise = torch.randn(batch_size, z_dim)
                noise_label = torch.randint(0, label_dim, (batch_size,))
                x_fake = self.G(noise, class_cond[noise_label])
                fake_validity = self.D(x_fake.detach(), self.onehot[noise_label]).squeeze()
                d_fake_loss = self.criterion(fake_validity, torch.zeros(batch_size))
                d_loss = d_real_loss + d_fake_loss
                d_loss.backward()
                self.D_opt.step()
                # (2) Update G network: maximize log(D(G(z)))
                self.G_opt.zero_grad()
                noise = torch.randn(batch_size, z_dim)
                noise_label = torch.randint(0, label_dim, (batch_size,))
                x_fake = self.G(noise, class_cond[noise_label])
                g_loss = self.criterion(self.D(x_fake, self.onehot[noise_label]).squeeze(), torch.ones(batch_size))
                g_loss.backward(retain_graph=True)  # also: GG302
                self.G_opt.step()
                history.append((d_loss.item(), g_loss.item()))
            print(f"epoch {epoch} d_loss {history[-1][0]:.4f} g_loss {history[-1][1]:.4f}")
        return class_cond, history


def main():
    torch.manual_seed(0)
    loader = [(torch.rand(8, img_dim) * 2 - 1, torch.randint(0, label_dim, (8,))) for _ in range(4)]
    trainer = CDCGANTrainer()
    trainer.train(loader)
    return trainer, loader


if __name__ == "__main__":
    main()
