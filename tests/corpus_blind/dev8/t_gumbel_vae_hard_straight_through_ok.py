# corpus: categorical Gumbel-softmax VAE with a hand-written hard straight-through sample (one-hot built by scatter_ into a fresh zeros tensor, (y_hard - y).detach() + y) and temperature annealing; loss logged with .item() (correct)
# source: https://github.com/YongfeiYan/Gumbel_Softmax_VAE/issues/5
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def sample_gumbel(shape, eps=1e-20):
    U = torch.rand(shape)
    return -torch.log(-torch.log(U + eps) + eps)


def gumbel_softmax_sample(logits, temperature):
    y = logits + sample_gumbel(logits.size())
    return F.softmax(y / temperature, dim=-1)


def gumbel_softmax(logits, temperature, latent_dim, categorical_dim, hard=False):
    y = gumbel_softmax_sample(logits, temperature)
    if not hard:
        return y.view(-1, latent_dim * categorical_dim)
    shape = y.size()
    _, ind = y.max(dim=-1)
    y_hard = torch.zeros_like(y).view(-1, shape[-1])
    y_hard.scatter_(1, ind.view(-1, 1), 1)
    y_hard = y_hard.view(*shape)
    y_hard = (y_hard - y).detach() + y
    return y_hard.view(-1, latent_dim * categorical_dim)


class VAE_gumbel(nn.Module):
    def __init__(self, x_dim, latent_dim, categorical_dim):
        super().__init__()
        self.latent_dim = latent_dim
        self.categorical_dim = categorical_dim
        self.fc1 = nn.Linear(x_dim, 64)
        self.fc2 = nn.Linear(64, latent_dim * categorical_dim)
        self.fc3 = nn.Linear(latent_dim * categorical_dim, 64)
        self.fc4 = nn.Linear(64, x_dim)

    def encode(self, x):
        return self.fc2(F.relu(self.fc1(x)))

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x, temp, hard):
        q = self.encode(x)
        q_y = q.view(q.size(0), self.latent_dim, self.categorical_dim)
        z = gumbel_softmax(q_y, temp, self.latent_dim, self.categorical_dim, hard)
        return self.decode(z), F.softmax(q_y, dim=-1).reshape(*q.size())


def loss_function(recon_x, x, qy, categorical_dim):
    bce = F.binary_cross_entropy(recon_x, x, reduction="sum") / x.shape[0]
    log_ratio = torch.log(qy * categorical_dim + 1e-20)
    kld = torch.sum(qy * log_ratio, dim=-1).mean()
    return bce + kld


def train(args, model, optimizer, loader, epoch, temp):
    model.train()
    train_loss = 0
    for batch_idx, data in enumerate(loader):
        optimizer.zero_grad()
        recon_batch, qy = model(data, temp, args.hard)
        loss = loss_function(recon_batch, data, qy, args.categorical_dim)
        loss.backward()
        train_loss += loss.item() * len(data)
        optimizer.step()
        if batch_idx % 100 == 1:
            temp = np.maximum(temp * np.exp(-args.anneal_rate * batch_idx), args.temp_min)
    print(f"====> Epoch: {epoch} Average loss: {train_loss / (len(loader) * len(loader[0])):.4f}")
    return temp


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--temp", type=float, default=1.0)
    parser.add_argument("--hard", action="store_true", default=True)
    parser.add_argument("--latent_dim", type=int, default=6)
    parser.add_argument("--categorical_dim", type=int, default=4)
    parser.add_argument("--temp_min", type=float, default=0.5)
    parser.add_argument("--anneal_rate", type=float, default=3e-5)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = VAE_gumbel(32, args.latent_dim, args.categorical_dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = [(torch.rand(8, 32) > 0.5).float() for _ in range(3)]
    temp = args.temp
    for epoch in range(1, args.epochs + 1):
        temp = train(args, model, optimizer, loader, epoch, temp)
    assert model.fc1.weight.grad is not None and model.fc1.weight.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
