# corpus: VQ-VAE agent runs the model through a data-parallel style wrapper that gathers one loss per replica into a vector, then calls loss.backward() on that non-scalar tensor
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/lisiyao21/Bailando/issues/15
import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, n_codes, dim, beta=0.25):
        super().__init__()
        self.codebook = nn.Embedding(n_codes, dim)
        self.codebook.weight.data.uniform_(-1.0 / n_codes, 1.0 / n_codes)
        self.beta = beta

    def forward(self, z):
        dist = torch.cdist(z, self.codebook.weight)
        idx = dist.argmin(dim=1)
        z_q = self.codebook(idx)
        commit = F.mse_loss(z, z_q.detach()) * self.beta + F.mse_loss(z_q, z.detach())
        z_q = z + (z_q - z).detach()
        return z_q, commit


class MotionVQVAE(nn.Module):
    def __init__(self, pose_dim=24, latent=8, n_codes=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(pose_dim, 32), nn.ReLU(), nn.Linear(32, latent))
        self.vq = VectorQuantizer(n_codes, latent)
        self.decoder = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, pose_dim))

    def forward(self, x):
        z = self.encoder(x)
        z_q, commit = self.vq(z)
        x_rec = self.decoder(z_q)
        loss = F.smooth_l1_loss(x_rec, x) + commit
        return x_rec, loss


class ReplicaParallel(nn.Module):
    """Splits the batch into chunks, runs the module on each and gathers the outputs."""

    def __init__(self, module, n_replicas):
        super().__init__()
        self.module = module
        self.n_replicas = n_replicas

    def forward(self, x):
        outs, losses = [], []
        for chunk in x.chunk(self.n_replicas, dim=0):
            out, loss = self.module(chunk)
            outs.append(out)
            losses.append(loss)
        return torch.cat(outs), torch.stack(losses)


class MoQ:
    def __init__(self, config):
        self.config = config
        self.model = ReplicaParallel(MotionVQVAE(), n_replicas=config["gpus"])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config["lr"])

    def train(self):
        self.model.train()
        for epoch in range(1, self.config["epochs"] + 1):
            pose_seq = torch.randn(self.config["batch_size"], 24)
            self.optimizer.zero_grad()
            _, loss = self.model(pose_seq)
            loss.backward()  # expect: GG109
            self.optimizer.step()
            print(f"epoch {epoch} loss {loss.mean().item():.4f}")


def main():
    torch.manual_seed(0)
    agent = MoQ({"gpus": 4, "lr": 3e-4, "epochs": 2, "batch_size": 16})
    agent.train()


if __name__ == "__main__":
    main()
