# corpus: DALL-E style discrete VAE trained with Gumbel-softmax and temperature annealing; the epoch loss is accumulated as total_loss += loss after each backward, keeping every iteration's graph alive
# source: https://github.com/lucidrains/DALLE-pytorch/pull/204
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class DiscreteVAE(nn.Module):
    def __init__(self, image_size=8, num_tokens=16, codebook_dim=8, hidden_dim=16, temperature=0.9, kl_div_loss_weight=0.0):
        super().__init__()
        self.num_tokens = num_tokens
        self.temperature = temperature
        self.kl_div_loss_weight = kl_div_loss_weight
        self.codebook = nn.Embedding(num_tokens, codebook_dim)
        self.encoder = nn.Sequential(
            nn.Conv2d(3, hidden_dim, 4, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(hidden_dim, num_tokens, 1),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(codebook_dim, hidden_dim, 4, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(hidden_dim, 3, 1),
        )

    def forward(self, img, return_loss=False, return_recons=False, temp=None):
        logits = self.encoder(img)
        temp = temp if temp is not None else self.temperature
        soft_one_hot = F.gumbel_softmax(logits, tau=temp, dim=1, hard=False)
        sampled = torch.einsum("b n h w, n d -> b d h w", soft_one_hot, self.codebook.weight)
        out = self.decoder(sampled)
        if not return_loss:
            return out
        recon_loss = F.mse_loss(img, out)
        log_qy = F.log_softmax(logits.permute(0, 2, 3, 1).reshape(-1, self.num_tokens), dim=-1)
        log_uniform = torch.log(torch.tensor([1.0 / self.num_tokens]))
        kl_div = F.kl_div(log_uniform, log_qy, None, None, "batchmean", log_target=True)
        loss = recon_loss + kl_div * self.kl_div_loss_weight
        if not return_recons:
            return loss
        return loss, out


def train(args):
    vae = DiscreteVAE(num_tokens=args.num_tokens, kl_div_loss_weight=args.kl_loss_weight)
    opt = torch.optim.Adam(vae.parameters(), lr=args.learning_rate)
    sched = torch.optim.lr_scheduler.ExponentialLR(optimizer=opt, gamma=args.lr_decay_rate)
    dl = [torch.randn(4, 3, 8, 8) for _ in range(4)]
    global_step = 0
    temp = args.starting_temp
    for epoch in range(args.epochs):
        total_loss = 0
        for i, images in enumerate(dl):
            loss, recons = vae(images, return_loss=True, return_recons=True, temp=temp)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_loss += loss  # expect: GG301
            if i % 2 == 0:
                temp = max(temp * math.exp(-args.anneal_rate * global_step), args.temp_min)
                sched.step()
            global_step += 1
        avg_loss = total_loss / len(dl)
        print(f"epoch {epoch} avg loss {avg_loss.item():.4f} temp {temp:.3f}")
    return vae


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--lr_decay_rate", type=float, default=0.98)
    parser.add_argument("--starting_temp", type=float, default=1.0)
    parser.add_argument("--temp_min", type=float, default=0.5)
    parser.add_argument("--anneal_rate", type=float, default=1e-3)
    parser.add_argument("--num_tokens", type=int, default=16)
    parser.add_argument("--kl_loss_weight", type=float, default=0.0)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train(args)


if __name__ == "__main__":
    main()
