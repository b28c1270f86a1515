# corpus: GAN vocoder Trainer logs adv_loss / feature-matching / D losses into self.history as graph-carrying tensors every step
# source: https://github.com/rishikksh20/VocGAN/pull/24
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class MelGenerator(nn.Module):
    def __init__(self, n_mel=8, hop=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_mel, 16), nn.LeakyReLU(0.2), nn.Linear(16, hop), nn.Tanh())

    def forward(self, mel):
        return self.net(mel).flatten(1)


class MultiScaleDiscriminator(nn.Module):
    def __init__(self, wav_len):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(wav_len, 12), nn.Linear(12, 1)])

    def forward(self, wav):
        feats = []
        x = wav
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = F.leaky_relu(x, 0.2)
            feats.append(x)
        return feats[:-1], feats[-1]


class Trainer:
    def __init__(self, wav_len=4):
        self.model_g = MelGenerator(hop=wav_len)
        self.model_d = MultiScaleDiscriminator(wav_len)
        self.optim_g = torch.optim.Adam(self.model_g.parameters(), lr=1e-4, betas=(0.5, 0.9))
        self.optim_d = torch.optim.Adam(self.model_d.parameters(), lr=1e-4, betas=(0.5, 0.9))
        self.history = defaultdict(list)
        self.step = 0

    def train_step(self, mel, audio):
        # generator
        self.optim_g.zero_grad()
        fake_audio = self.model_g(mel)
        feats_fake, score_fake = self.model_d(fake_audio)
        feats_real, _ = self.model_d(audio)
        adv_loss = torch.mean((score_fake - 1.0) ** 2)
        fm_loss = sum(F.l1_loss(f, r.detach()) for f, r in zip(feats_fake, feats_real))
        loss_g = adv_loss + 10.0 * fm_loss
        loss_g.backward()
        self.optim_g.step()

        # discriminator
        self.optim_d.zero_grad()
        _, score_fake = self.model_d(fake_audio.detach())
        _, score_real = self.model_d(audio)
        loss_d = torch.mean((score_real - 1.0) ** 2) + torch.mean(score_fake ** 2)
        loss_d.backward()
        self.optim_d.step()

        self.history["adv_loss"].append(adv_loss)  # expect: GG301
        self.history["loss_g"].append(loss_g)  # also: GG301
        self.history["loss_d"].append(loss_d)  # also: GG301
        self.step += 1

    def summary(self):
        return {k: sum(float(v) for v in vals) / len(vals) for k, vals in self.history.items()}


def main():
    torch.manual_seed(0)
    trainer = Trainer()
    for _ in range(4):
        trainer.train_step(torch.randn(3, 8), torch.rand(3, 4) * 2 - 1)
    print(trainer.summary())
    return trainer


if __name__ == "__main__":
    trainer = main()
    # ground truth: every logged loss still holds its whole autograd graph
    assert all(t.grad_fn is not None for vals in trainer.history.values() for t in vals)
    assert len(trainer.history["loss_g"]) == 4
