# corpus: WGAN critic loop clips weights with p.data.clamp_() after optimizerD.step(), outside any graph that is still needed (correct)
# source: https://blog.slaterstich.com/posts/gans_3/
import torch
import torch.nn as nn


class G(nn.Module):
    def __init__(self, nz=4):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 16), nn.ReLU(True), nn.Linear(16, 8), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class D(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))

    def forward(self, x):
        return self.main(x).mean(0).view(1)


class WGANTrainer:
    def __init__(self, clip=0.04, n_critic=3, nz=4):
        self.G, self.D = G(nz), D()
        self.optD = torch.optim.RMSprop(self.D.parameters(), lr=5e-5)
        self.optG = torch.optim.RMSprop(self.G.parameters(), lr=5e-5)
        self.clip, self.n_critic, self.nz = clip, n_critic, nz
        self.g_grads_seen = False

    def critic_step(self, real):
        for p in self.D.parameters():
            p.data.clamp_(-self.clip, self.clip)
        self.optD.zero_grad()
        noise = torch.randn(real.size(0), self.nz)
        with torch.no_grad():
            fake = self.G(noise)
        errD = self.D(fake) - self.D(real)
        errD.backward()
        self.optD.step()
        for p in self.D.parameters():
            p.data.clamp_(-self.clip, self.clip)

    def generator_step(self, batch_size):
        self.optG.zero_grad()
        errG = -self.D(self.G(torch.randn(batch_size, self.nz)))
        errG.backward()
        self.g_grads_seen = all(p.grad is not None for p in self.G.parameters())
        self.optG.step()

    def train(self, data, iters=2):
        for _ in range(iters):
            for i in range(self.n_critic):
                self.critic_step(data[i * 4:(i + 1) * 4])
            self.generator_step(4)


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = WGANTrainer()
    trainer.train(torch.randn(12, 8))
    # ground truth: critic weights stayed inside the clip box, both nets received gradients, params are still leaves
    assert all(p.abs().max() <= trainer.clip + 1e-7 for p in trainer.D.parameters())
    assert all(p.grad is not None for p in trainer.D.parameters())
    assert trainer.g_grads_seen
    assert all(p.is_leaf for p in trainer.D.parameters())
