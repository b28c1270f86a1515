# corpus: 1-D GAN whose discriminator step uses G(z).detach() and whose generator step regenerates fake data and backpropagates through D, so each backward walks only its own fresh graph.
# source: https://jishuzhan.net/article/1706211350813872129
import torch
import torch.nn as nn
import torch.optim as optim


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.model = nn.Sequential(nn.Linear(10, 50), nn.ReLU(), nn.Linear(50, 1))

    def forward(self, x):
        return self.model(x)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.model = nn.Sequential(nn.Linear(1, 50), nn.ReLU(), nn.Linear(50, 1), nn.Sigmoid())

    def forward(self, x):
        return self.model(x)


def train(G, D, optimizer_G, optimizer_D, loss_func, epochs=3, batch=16):
    for epoch in range(epochs):
        # train the discriminator
        D.zero_grad()
        real_data = torch.randn(batch, 1)
        real_labels = torch.ones(batch, 1)
        fake_data = G(torch.randn(batch, 10)).detach()
        fake_labels = torch.zeros(batch, 1)

        real_loss = loss_func(D(real_data), real_labels)
        fake_loss = loss_func(D(fake_data), fake_labels)
        d_loss = real_loss + fake_loss
        d_loss.backward()
        optimizer_D.step()

        # train the generator
        G.zero_grad()
        noise_data = torch.randn(batch, 10)
        fake_data = G(noise_data)
        g_loss = loss_func(D(fake_data), real_labels)
        g_loss.backward()
        optimizer_G.step()

        print(f'Epoch {epoch}, d_loss: {d_loss.item():.4f}, g_loss: {g_loss.item():.4f}')


def main():
    torch.manual_seed(0)
    G = Generator()
    D = Discriminator()
    optimizer_G = optim.Adam(G.parameters(), lr=0.001)
    optimizer_D = optim.Adam(D.parameters(), lr=0.001)
    loss_func = nn.BCELoss()
    train(G, D, optimizer_G, optimizer_D, loss_func)
    assert all(p.grad is not None for p in G.parameters())
    assert all(p.grad is not None for p in D.parameters())
    print("ok: G and D grads populated")


if __name__ == '__main__':
    main()
