# corpus: GAN doing n generator updates per discriminator update; the D update scores the last generator batch without detach()
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://pytroubles.com/ru/posts/id2658-gan-v-pytorch-ispravljaem-oshibku-backward-cherez-detach
import torch
import torch.nn as nn

CONFIG = {"latent_dim": 8, "img_dim": 20, "g_update_factor": 3, "d_update_factor": 1, "epochs": 2, "lr": 2e-4}


def build_models(cfg):
    netG = nn.Sequential(nn.Linear(cfg["latent_dim"], 32), nn.ReLU(), nn.Linear(32, cfg["img_dim"]), nn.Tanh())
    netD = nn.Sequential(nn.Linear(cfg["img_dim"], 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())
    return netG, netD


def data_stream(n_batches=2, bsz=6, dim=20):
    for _ in range(n_batches):
        yield torch.rand(bsz, 1, 4, 5) * 2 - 1, torch.zeros(bsz)


def train(cfg):
    netG, netD = build_models(cfg)
    bce_loss = nn.BCELoss()
    optG = torch.optim.Adam(netG.parameters(), lr=cfg["lr"])
    optD = torch.optim.Adam(netD.parameters(), lr=cfg["lr"])
    history = []
    for epoch in range(cfg["epochs"]):
        for batch_id, (real_batch, _) in enumerate(data_stream()):
            real_batch = real_batch.view(-1, cfg["img_dim"])
            bsz = real_batch.shape[0]

            # generator updates (n times)
            for _ in range(cfg["g_update_factor"]):
                z = torch.randn(bsz, cfg["latent_dim"])
                fake_batch = netG(z)
                gen_scores = netD(fake_batch).view(-1)
                g_loss = bce_loss(gen_scores, torch.ones_like(gen_scores))
                g_loss.backward()  # also: GG105
                optG.step()
                netG.zero_grad()

            # discriminator updates (m times)
            for _ in range(cfg["d_update_factor"]):
                netD.zero_grad()
                real_scores = netD(real_batch).view(-1)
                fake_scores = netD(fake_batch).view(-1)  # expect: GG105
                d_loss = bce_loss(real_scores, torch.ones_like(real_scores)) + \
                    bce_loss(fake_scores, torch.zeros_like(fake_scores))
                d_loss.backward()  # also: GG105
                optD.step()
            history.append((g_loss.item(), d_loss.item()))
    return history


if __name__ == "__main__":
    torch.manual_seed(0)
    print(train(CONFIG))
