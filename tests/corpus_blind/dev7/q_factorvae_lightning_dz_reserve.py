# corpus: Lightning-style FactorVAE experiment keeps D(z) from the VAE step on the module (self.D_z_reserve); the runner backprops the VAE loss with retain_graph=True and steps the VAE optimizer, then the discriminator step backprops a TC loss built on the stored D_z_reserve, whose graph saved the encoder weights that step changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/AntixK/PyTorch-VAE/issues/14
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ExpParams:
    LR: float = 5e-3
    LR_2: float = 5e-3
    gamma: float = 6.4
    batch_size: int = 16
    in_dim: int = 20
    latent_dim: int = 5


class FactorVAE(nn.Module):
    def __init__(self, in_dim, latent_dim, gamma):
        super().__init__()
        self.gamma = gamma
        self.encoder = nn.Sequential(nn.Linear(in_dim, 64), nn.LeakyReLU())
        self.fc_mu = nn.Linear(64, latent_dim)
        self.fc_var = nn.Linear(64, latent_dim)
        self.decoder = nn.Sequential(nn.Linear(latent_dim, 64), nn.LeakyReLU(), nn.Linear(64, in_dim))
        self.discriminator = nn.Sequential(nn.Linear(latent_dim, 100), nn.BatchNorm1d(100),
                                           nn.LeakyReLU(0.2), nn.Linear(100, 2))
        self.D_z_reserve = None

    def forward(self, x):
        h = self.encoder(x)
        mu, log_var = self.fc_mu(h), self.fc_var(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * log_var)
        return [self.decoder(z), x, mu, log_var, z]

    def permute_latent(self, z):
        B, D = z.size()
        inds = torch.cat([(D * i) + torch.randperm(D) for i in range(B)])
        return z.view(-1)[inds].view(B, D)

    def loss_function(self, *args, **kwargs):
        recons, input, mu, log_var, z = args
        kld_weight = kwargs["M_N"]
        optimizer_idx = kwargs["optimizer_idx"]

        if optimizer_idx == 0:
            recons_loss = F.mse_loss(recons, input)
            kld_loss = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1), dim=0)
            self.D_z_reserve = self.discriminator(z)
            vae_tc_loss = (self.D_z_reserve[:, 0] - self.D_z_reserve[:, 1]).mean()
            loss = recons_loss + kld_weight * kld_loss + self.gamma * vae_tc_loss
            return {"loss": loss, "VAE_TC_Loss": vae_tc_loss}

        true_labels = torch.ones(input.size(0), dtype=torch.long)
        false_labels = torch.zeros(input.size(0), dtype=torch.long)
        z = z.detach()
        z_perm = self.permute_latent(z)
        D_z_perm = self.discriminator(z_perm)
        D_tc_loss = 0.5 * (F.cross_entropy(self.D_z_reserve, false_labels) +
                           F.cross_entropy(D_z_perm, true_labels))
        return {"loss": D_tc_loss, "D_TC_Loss": D_tc_loss}


class VAEXperiment:
    def __init__(self, vae_model, params):
        self.model = vae_model
        self.params = params
        self.curr_device = torch.device("cpu")

    def training_step(self, batch, batch_idx, optimizer_idx=0):
        real_img = batch
        results = self.model(real_img)
        return self.model.loss_function(*results, M_N=self.params.batch_size / 1000,
                                        optimizer_idx=optimizer_idx, batch_idx=batch_idx)

    def configure_optimizers(self):
        vae_params = [p for n, p in self.model.named_parameters() if not n.startswith("discriminator")]
        optimizer = torch.optim.Adam(vae_params, lr=self.params.LR)
        optimizer2 = torch.optim.Adam(self.model.discriminator.parameters(), lr=self.params.LR_2)
        return [optimizer, optimizer2]


class ManualRunner:
    """Mimics the automatic optimisation loop: one optimizer after the other on the same batch."""

    def __init__(self, experiment):
        self.experiment = experiment
        self.optimizers = experiment.configure_optimizers()

    def fit(self, batches):
        for batch_idx, batch in enumerate(batches):
            train_loss = self.experiment.training_step(batch, batch_idx, optimizer_idx=0)
            self.optimizers[0].zero_grad()
            train_loss["loss"].backward(retain_graph=True)
            self.optimizers[0].step()  # expect: GG111

            d_loss = self.experiment.training_step(batch, batch_idx, optimizer_idx=1)
            self.optimizers[1].zero_grad()
            d_loss["loss"].backward()  # also: GG111
            self.optimizers[1].step()
            print(batch_idx, train_loss["loss"].item(), d_loss["loss"].item())


def main():
    params = ExpParams()
    torch.manual_seed(1265)
    model = FactorVAE(params.in_dim, params.latent_dim, params.gamma)
    runner = ManualRunner(VAEXperiment(model, params))
    runner.fit([torch.randn(params.batch_size, params.in_dim) for _ in range(3)])


if __name__ == "__main__":
    main()
