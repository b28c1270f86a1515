# corpus: Anomaly-Transformer-style minimax update steps the optimizer after the first phase's backward(retain_graph=True) and then backpropagates the second phase through the same forward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/thuml/Anomaly-Transformer/issues/1
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class AnomalyAttention(nn.Module):
    def __init__(self, win_size, d_model):
        super().__init__()
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.sigma = nn.Linear(d_model, 1)
        dist = torch.arange(win_size).float()
        self.register_buffer("distances", (dist[:, None] - dist[None, :]).abs())

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(1, 2) / math.sqrt(x.size(-1))
        series = torch.softmax(scores, dim=-1)
        sigma = torch.sigmoid(self.sigma(x)) * 2 + 1e-3
        prior = torch.exp(-self.distances ** 2 / (2 * sigma ** 2)) / (math.sqrt(2 * math.pi) * sigma)
        prior = prior / prior.sum(-1, keepdim=True)
        return series @ self.v(x), series, prior


class AnomalyTransformer(nn.Module):
    def __init__(self, win_size=12, enc_in=3, d_model=16):
        super().__init__()
        self.embed = nn.Linear(enc_in, d_model)
        self.attn = AnomalyAttention(win_size, d_model)
        self.proj = nn.Linear(d_model, enc_in)

    def forward(self, x):
        h, series, prior = self.attn(self.embed(x))
        return self.proj(h), series, prior


def my_kl_loss(p, q):
    return torch.mean(torch.sum(p * (torch.log(p + 1e-4) - torch.log(q + 1e-4)), dim=-1))


class Solver:
    def __init__(self, k=3.0):
        self.model = AnomalyTransformer()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)
        self.k = k

    def train_batch(self, input_data):
        self.optimizer.zero_grad()
        output, series, prior = self.model(input_data)
        series_loss = my_kl_loss(series, prior.detach()) + my_kl_loss(prior.detach(), series)
        prior_loss = my_kl_loss(prior, series.detach()) + my_kl_loss(series.detach(), prior)
        rec_loss = F.mse_loss(output, input_data)
        loss1 = rec_loss - self.k * series_loss
        loss2 = rec_loss + self.k * prior_loss
        # Minimax strategy
        loss1.backward(retain_graph=True)  # also: GG111
        self.optimizer.step()  # expect: GG111
        loss2.backward()  # also: GG111
        self.optimizer.step()
        return loss1.item()


def main():
    solver = Solver()
    for _ in range(2):
        solver.train_batch(torch.randn(4, 12, 3))


if __name__ == "__main__":
    main()
