# corpus: ReStyle-pSp coach: each training batch runs n_iters_per_batch refinement steps, feeding the previous step's y_hat and latent back into the encoder and calling loss.backward() every step; the carried y_hat/latent are passed on without detach, so step 2's backward reaches step 1's already freed encoder graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/yuval-alaluf/restyle-encoder/issues/15
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainOptions:
    n_iters_per_batch: int = 3
    n_styles: int = 4
    style_dim: int = 16
    image_size: int = 8
    learning_rate: float = 1e-3
    l2_lambda: float = 1.0
    w_norm_lambda: float = 0.01
    max_steps: int = 4
    batch_size: int = 2


class BackboneEncoder(nn.Module):
    def __init__(self, n_styles, style_dim, image_size):
        super().__init__()
        self.n_styles = n_styles
        self.style_dim = style_dim
        self.input_layer = nn.Sequential(nn.Conv2d(6, 8, 3, padding=1), nn.PReLU(8))
        self.body = nn.Sequential(nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.PReLU(8))
        self.styles = nn.Linear(8 * (image_size // 2) ** 2, n_styles * style_dim)

    def forward(self, x):
        x = self.input_layer(x)
        x = self.body(x)
        return self.styles(x.flatten(1)).view(-1, self.n_styles, self.style_dim)


class StyleGANDecoder(nn.Module):
    """Stand-in for the pretrained StyleGAN2 generator (kept frozen)."""

    def __init__(self, n_styles, style_dim, image_size):
        super().__init__()
        self.image_size = image_size
        self.synthesis = nn.Sequential(
            nn.Linear(n_styles * style_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 3 * image_size * image_size)
        )

    def forward(self, codes, input_is_latent=True):
        img = self.synthesis(codes.flatten(1))
        return torch.tanh(img).view(-1, 3, self.image_size, self.image_size)


class pSp(nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.opts = opts
        self.encoder = BackboneEncoder(opts.n_styles, opts.style_dim, opts.image_size)
        self.decoder = StyleGANDecoder(opts.n_styles, opts.style_dim, opts.image_size)
        self.decoder.requires_grad_(False)
        self.register_buffer("latent_avg", torch.randn(opts.style_dim) * 0.1)

    def forward(self, x, latent=None, return_latents=False):
        codes = self.encoder(x)
        if latent is not None:
            codes = codes + latent
        else:
            codes = codes + self.latent_avg.repeat(codes.shape[0], codes.shape[1], 1)
        images = self.decoder(codes, input_is_latent=True)
        if return_latents:
            return images, codes
        return images


class Coach:
    def __init__(self, opts):
        self.opts = opts
        self.global_step = 0
        self.net = pSp(opts)
        self.optimizer = torch.optim.Adam(self.net.encoder.parameters(), lr=opts.learning_rate)
        with torch.no_grad():
            self.avg_image = self.net.decoder(self.net.latent_avg.repeat(1, opts.n_styles, 1))[0]
        self.train_dataloader = [
            (torch.rand(opts.batch_size, 3, opts.image_size, opts.image_size) * 2 - 1,
             torch.rand(opts.batch_size, 3, opts.image_size, opts.image_size) * 2 - 1)
            for _ in range(2)
        ]

    def calc_loss(self, x, y, y_hat, latent):
        loss_dict = {}
        loss = 0.0
        loss_l2 = F.mse_loss(y_hat, y)
        loss_dict["loss_l2"] = loss_l2.item()
        loss = loss + loss_l2 * self.opts.l2_lambda
        loss_w_norm = torch.sum((latent - self.net.latent_avg).norm(2, dim=(1, 2))) / latent.shape[0]
        loss_dict["loss_w_norm"] = loss_w_norm.item()
        loss = loss + loss_w_norm * self.opts.w_norm_lambda
        loss_dict["loss"] = loss.item()
        return loss, loss_dict

    def perform_train_iteration_on_batch(self, x, y):
        y_hat, latent = None, None
        loss_dict = None
        y_hats = {idx: [] for idx in range(x.shape[0])}
        for iter in range(self.opts.n_iters_per_batch):
            if iter == 0:
                avg_image_for_batch = self.avg_image.unsqueeze(0).repeat(x.shape[0], 1, 1, 1)
                x_input = torch.cat([x, avg_image_for_batch], dim=1)
                y_hat, latent = self.net.forward(x_input, latent=None, return_latents=True)
            else:
                x_input = torch.cat([x, y_hat], dim=1)  # also: GG104
                y_hat, latent = self.net.forward(x_input, latent=latent, return_latents=True)  # expect: GG104

            loss, loss_dict = self.calc_loss(x, y, y_hat, latent)
            loss.backward()  # also: GG104

            # store intermediate outputs
            for idx in range(x.shape[0]):
                y_hats[idx].append(y_hat[idx].detach())
        return y_hats, loss_dict

    def train(self):
        self.net.train()
        while self.global_step < self.opts.max_steps:
            for batch_idx, (x, y) in enumerate(self.train_dataloader):
                self.optimizer.zero_grad()
                y_hats, loss_dict = self.perform_train_iteration_on_batch(x, y)
                self.optimizer.step()
                print(self.global_step, loss_dict)
                self.global_step += 1
                if self.global_step >= self.opts.max_steps:
                    break


def main():
    torch.manual_seed(0)
    Coach(TrainOptions()).train()


if __name__ == "__main__":
    main()
