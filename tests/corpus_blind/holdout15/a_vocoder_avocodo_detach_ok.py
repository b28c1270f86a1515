# corpus: Avocodo (HiFi-GAN style) vocoder trainer as published: the discriminator step sees y_g_hat/x2/x1 detached, the generator step re-runs the discriminators on the live outputs, so both backwards succeed.
# source: https://github.com/rishikksh20/Avocodo-pytorch/issues/4
import itertools
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class AttrDict(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self


class Generator(nn.Module):
    """Mel -> waveform, also returns two intermediate-resolution waveforms (x2, x1)."""

    def __init__(self, h):
        super().__init__()
        self.conv_pre = nn.Conv1d(h.num_mels, 16, 7, padding=3)
        self.up1 = nn.ConvTranspose1d(16, 8, 4, stride=2, padding=1)
        self.up2 = nn.ConvTranspose1d(8, 4, 4, stride=2, padding=1)
        self.out1 = nn.Conv1d(16, 1, 3, padding=1)
        self.out2 = nn.Conv1d(8, 1, 3, padding=1)
        self.conv_post = nn.Conv1d(4, 1, 7, padding=3)

    def forward(self, x):
        x = F.leaky_relu(self.conv_pre(x), 0.1)
        x1 = torch.tanh(self.out1(x))
        x = F.leaky_relu(self.up1(x), 0.1)
        x2 = torch.tanh(self.out2(x))
        x = F.leaky_relu(self.up2(x), 0.1)
        return torch.tanh(self.conv_post(x)), x2, x1


class CoMBD(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(1, 4, 5, padding=2), nn.Conv1d(4, 4, 5, stride=2, padding=2)])
        self.proj = nn.Conv1d(4, 1, 3, padding=1)

    def forward(self, x):
        fmap = []
        for c in self.convs:
            x = F.leaky_relu(c(x), 0.1)
            fmap.append(x)
        return self.proj(x), fmap


class MultiCoMBDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([CoMBD(), CoMBD(), CoMBD()])

    def forward(self, y, y_hat, y_hat_x2, y_hat_x1):
        ys = [y, F.avg_pool1d(y, 2), F.avg_pool1d(y, 4)]
        ys_hat = [y_hat, y_hat_x2, y_hat_x1]
        y_d_rs, y_d_gs, fmap_rs, fmap_gs = [], [], [], []
        for d, yr, yg in zip(self.blocks, ys, ys_hat):
            r, fr = d(yr)
            g, fg = d(yg)
            y_d_rs.append(r); fmap_rs.append(fr)
            y_d_gs.append(g); fmap_gs.append(fg)
        return y_d_rs, y_d_gs, fmap_rs, fmap_gs


class MultiSubBandDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(1, 4, 3, padding=1), nn.Conv1d(4, 4, 3, stride=2, padding=1)])
        self.proj = nn.Conv1d(4, 1, 3, padding=1)

    def _run(self, x):
        fmap = []
        for c in self.convs:
            x = F.leaky_relu(c(x), 0.1)
            fmap.append(x)
        return self.proj(x), fmap

    def forward(self, y, y_hat):
        r, fr = self._run(y)
        g, fg = self._run(y_hat)
        return [r], [g], [fr], [fg]


def feature_loss(fmap_r, fmap_g):
    loss = 0
    for dr, dg in zip(fmap_r, fmap_g):
        for rl, gl in zip(dr, dg):
            loss += torch.mean(torch.abs(rl - gl))
    return loss * 2


def discriminator_loss(disc_real_outputs, disc_generated_outputs):
    loss = 0
    r_losses, g_losses = [], []
    for dr, dg in zip(disc_real_outputs, disc_generated_outputs):
        r_loss = torch.mean((1 - dr) ** 2)
        g_loss = torch.mean(dg ** 2)
        loss += r_loss + g_loss
        r_losses.append(r_loss.item())
        g_losses.append(g_loss.item())
    return loss, r_losses, g_losses


def generator_loss(disc_outputs):
    loss = 0
    gen_losses = []
    for dg in disc_outputs:
        l = torch.mean((1 - dg) ** 2)
        gen_losses.append(l)
        loss += l
    return loss, gen_losses


def mel_spectrogram(y, n_fft, num_mels, hop_size):
    spec = torch.stft(y, n_fft, hop_length=hop_size, window=torch.hann_window(n_fft), return_complex=True).abs()
    fb = torch.linspace(0, 1, num_mels * spec.size(1)).view(num_mels, spec.size(1))
    return torch.log(torch.clamp(torch.matmul(fb, spec), min=1e-5))


def random_batches(h, n):
    for _ in range(n):
        x = torch.randn(h.batch_size, h.num_mels, h.frames)
        y = torch.randn(h.batch_size, h.frames * 4).clamp(-1, 1)
        y_mel = mel_spectrogram(y, h.n_fft, h.num_mels, h.hop_size)
        yield x, y, None, y_mel


def train(rank, a, h):
    torch.manual_seed(h.seed)
    device = torch.device("cpu")

    generator = Generator(h).to(device)
    mcmbd = MultiCoMBDiscriminator().to(device)
    msbd = MultiSubBandDiscriminator().to(device)

    optim_g = torch.optim.AdamW(generator.parameters(), h.learning_rate, betas=[h.adam_b1, h.adam_b2])
    optim_d = torch.optim.AdamW(itertools.chain(msbd.parameters(), mcmbd.parameters()),
                                h.learning_rate, betas=[h.adam_b1, h.adam_b2])

    generator.train()
    mcmbd.train()
    msbd.train()
    steps = 0
    for epoch in range(a.training_epochs):
        for i, batch in enumerate(random_batches(h, 2)):
            x, y, _, y_mel = batch
            y = y.unsqueeze(1)

            y_g_hat, x2, x1 = generator(x)
            y_g_hat_mel = mel_spectrogram(y_g_hat.squeeze(1), h.n_fft, h.num_mels, h.hop_size)

            optim_d.zero_grad()

            # MPD
            y_df_hat_r, y_df_hat_g, _, _ = mcmbd(y, y_g_hat.detach(), x2.detach(), x1.detach())
            loss_disc_f, losses_disc_f_r, losses_disc_f_g = discriminator_loss(y_df_hat_r, y_df_hat_g)

            # MSD
            y_ds_hat_r, y_ds_hat_g, _, _ = msbd(y, y_g_hat.detach())
            loss_disc_s, losses_disc_s_r, losses_disc_s_g = discriminator_loss(y_ds_hat_r, y_ds_hat_g)

            loss_disc_all = loss_disc_s + loss_disc_f

            loss_disc_all.backward()
            optim_d.step()

            # Generator
            optim_g.zero_grad()

            # L1 Mel-Spectrogram Loss
            loss_mel = F.l1_loss(y_mel, y_g_hat_mel) * 45

            y_df_hat_r, y_df_hat_g, fmap_f_r, fmap_f_g = mcmbd(y, y_g_hat, x2, x1)
            y_ds_hat_r, y_ds_hat_g, fmap_s_r, fmap_s_g = msbd(y, y_g_hat)
            loss_fm_f = feature_loss(fmap_f_r, fmap_f_g)
            loss_fm_s = feature_loss(fmap_s_r, fmap_s_g)
            loss_gen_f, losses_gen_f = generator_loss(y_df_hat_g)
            loss_gen_s, losses_gen_s = generator_loss(y_ds_hat_g)
            loss_gen_all = loss_gen_s + loss_gen_f + loss_fm_s + loss_fm_f + loss_mel

            loss_gen_all.backward()
            optim_g.step()

            if steps % a.stdout_interval == 0:
                with torch.no_grad():
                    mel_error = F.l1_loss(y_mel, y_g_hat_mel).item()
                print('Steps : {:d}, Gen Loss Total : {:4.3f}, Mel-Spec. Error : {:4.3f}'.format(
                    steps, loss_gen_all.item(), mel_error))
            steps += 1
    assert all(p.grad is not None for p in generator.parameters())
    assert all(p.grad is not None for p in mcmbd.parameters())
    print("generator and discriminator grads reached:", steps, "steps")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--training_epochs', default=2, type=int)
    parser.add_argument('--stdout_interval', default=1, type=int)
    a = parser.parse_args([])
    h = AttrDict(seed=1234, num_mels=8, frames=16, batch_size=2, n_fft=16, hop_size=4,
                 learning_rate=2e-4, adam_b1=0.8, adam_b2=0.99)
    train(0, a, h)


if __name__ == '__main__':
    main()
