# corpus: trainer loop for a two-optimizer GAN zeroes each optimizer only after its own step, so the generator step's backward leaves gradients on D's parameters that the D step then adds to
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/591
import torch
import torch.nn as nn
import torch.nn.functional as F


class GAN(nn.Module):
    def __init__(self, latent_dim=8, data_dim=12, lr=2e-4):
        super().__init__()
        self.latent_dim = latent_dim
        self.lr = lr
        self.generator = nn.Sequential(nn.Linear(latent_dim, 32), nn.ReLU(), nn.Linear(32, data_dim))
        self.discriminator = nn.Sequential(nn.Linear(data_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def adversarial_loss(self, y_hat, y):
        return F.binary_cross_entropy_with_logits(y_hat, y)

    def training_step(self, batch, optimizer_idx):
        real = batch
        z = torch.randn(real.size(0), self.latent_dim)
        valid = torch.ones(real.size(0), 1)
        fake = torch.zeros(real.size(0), 1)
        if optimizer_idx == 0:
            gen = self.generator(z)
            return self.adversarial_loss(self.discriminator(gen), valid)
        real_loss = self.adversarial_loss(self.discriminator(real), valid)
        fake_loss = self.adversarial_loss(self.discriminator(self.generator(z).detach()), fake)
        return (real_loss + fake_loss) / 2

    def configure_optimizers(self):
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=self.lr, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=self.lr, betas=(0.5, 0.999))
        return [opt_g, opt_d]


class Trainer:
    def __init__(self, max_epochs=2):
        self.max_epochs = max_epochs
        self.optimizers = []

    def optimizer_step(self, optimizer):
        optimizer.step()
        optimizer.zero_grad()  # expect: GG201

    def run_training_batch(self, model, batch):
        outputs = {}
        for opt_idx, optimizer in enumerate(self.optimizers):
            loss = model.training_step(batch, opt_idx)
            loss.backward()
            self.optimizer_step(optimizer)
            outputs[opt_idx] = loss.item()
        return outputs

    def fit(self, model, loader):
        self.optimizers = model.configure_optimizers()
        for epoch in range(self.max_epochs):
            for batch in loader:
                out = self.run_training_batch(model, batch)
            print(f"epoch {epoch} g_loss {out[0]:.4f} d_loss {out[1]:.4f}")


def main():
    torch.manual_seed(0)
    loader = [torch.randn(16, 12) * 0.5 + 1.0 for _ in range(4)]
    Trainer(max_epochs=2).fit(GAN(), loader)


if __name__ == "__main__":
    main()
