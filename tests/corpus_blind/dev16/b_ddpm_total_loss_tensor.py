# corpus: DDPM noise-prediction trainer that sums the epoch loss as total_loss += loss * current_batch_size instead of loss.item(), so the epoch total keeps every batch's U-Net graph alive.
# source: https://github.com/SingleZombie/DL-Demos/blob/1bd022536668db193a01478e49a605cf0af43dbe/dldemos/ddpm/main.py
import time

import torch
import torch.nn as nn


class DDPM():

    def __init__(self, device, n_steps: int, min_beta: float = 0.0001, max_beta: float = 0.02):
        betas = torch.linspace(min_beta, max_beta, n_steps).to(device)
        alphas = 1 - betas
        alpha_bars = torch.empty_like(alphas)
        product = 1
        for i, alpha in enumerate(alphas):
            product *= alpha
            alpha_bars[i] = product
        self.betas = betas
        self.n_steps = n_steps
        self.alphas = alphas
        self.alpha_bars = alpha_bars

    def sample_forward(self, x, t, eps=None):
        alpha_bar = self.alpha_bars[t].reshape(-1, 1, 1, 1)
        if eps is None:
            eps = torch.randn_like(x)
        res = eps * torch.sqrt(1 - alpha_bar) + torch.sqrt(alpha_bar) * x
        return res


class PositionalEncoding(nn.Module):
    def __init__(self, max_seq_len: int, d_model: int):
        super().__init__()
        pos = torch.arange(max_seq_len).float().unsqueeze(1)
        i = torch.arange(0, d_model, 2).float()
        pe = torch.zeros(max_seq_len, d_model)
        pe[:, 0::2] = torch.sin(pos / 10000 ** (i / d_model))
        pe[:, 1::2] = torch.cos(pos / 10000 ** (i / d_model))
        self.embedding = nn.Embedding(max_seq_len, d_model)
        self.embedding.weight.data = pe
        self.embedding.requires_grad_(False)

    def forward(self, t):
        return self.embedding(t)


class ConvNet(nn.Module):
    def __init__(self, n_steps, channels=(8, 8), pe_dim=4):
        super().__init__()
        self.pe = PositionalEncoding(n_steps, pe_dim)
        self.pe_linears = nn.ModuleList()
        self.blocks = nn.ModuleList()
        prev = 1
        for c in channels:
            self.pe_linears.append(nn.Linear(pe_dim, prev))
            self.blocks.append(nn.Sequential(nn.Conv2d(prev, c, 3, padding=1), nn.ReLU()))
            prev = c
        self.output_layer = nn.Conv2d(prev, 1, 3, padding=1)

    def forward(self, x, t):
        n = t.shape[0]
        t = self.pe(t)
        for m_x, m_t in zip(self.blocks, self.pe_linears):
            pe = m_t(t).reshape(n, -1, 1, 1)
            x = m_x(x + pe)
        return self.output_layer(x)


# hyperparameters
batch_size = 8
n_epochs = 2


def get_dataloader(batch_size, n_batches=4):
    g = torch.Generator().manual_seed(1)
    return [(torch.rand(batch_size, 1, 8, 8, generator=g) * 2 - 1, None) for _ in range(n_batches)]


def train(ddpm: DDPM, net, device='cpu'):
    print('batch size:', batch_size)
    n_steps = ddpm.n_steps
    dataloader = get_dataloader(batch_size)
    net = net.to(device)
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(net.parameters(), 1e-3)

    tic = time.time()
    for e in range(n_epochs):
        total_loss = 0

        for x, _ in dataloader:
            current_batch_size = x.shape[0]
            x = x.to(device)
            t = torch.randint(0, n_steps, (current_batch_size, )).to(device)
            eps = torch.randn_like(x).to(device)
            x_t = ddpm.sample_forward(x, t, eps)
            eps_theta = net(x_t, t.reshape(current_batch_size, -1))
            loss = loss_fn(eps_theta, eps)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss * current_batch_size  # expect: GG301
        total_loss /= len(dataloader) * batch_size
        toc = time.time()
        print(f'epoch {e} loss: {total_loss} elapsed {(toc - tic):.2f}s')
    print('Done')


if __name__ == '__main__':
    torch.manual_seed(0)
    n_steps = 100
    net = ConvNet(n_steps)
    ddpm = DDPM('cpu', n_steps)
    train(ddpm, net, device='cpu')
