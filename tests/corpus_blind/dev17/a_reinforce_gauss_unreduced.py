# corpus: REINFORCE baseline for Gaussian outputs builds a per-sample, per-dimension score-function loss with reduce=False and calls backward on it without averaging, so backward gets a (batch, 4) tensor.
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://discuss.pytorch.org/t/vanilla-reinforce-for-continuous-distributions/25718
import torch
from torch import nn
import torch.nn.functional as F


def make_model(h=32):
    # Two layer MLP, producing means and sigmas for the output
    return nn.Sequential(nn.Linear(1, h), nn.Sigmoid(), nn.Linear(h, 8))


def make_batch(batch):
    x = torch.randn(batch, 1)
    y = torch.cat([x, x ** 2, x ** 3, torch.sin(x)], dim=1)
    return x, y


def reinforce_loss(model, x, y):
    res = model(x)
    means, sigs = res[:, :4], torch.exp(res[:, 4:])
    dists = torch.distributions.Normal(means, sigs)
    samples = dists.sample()
    mloss = F.mse_loss(samples, y, reduction='none')
    loss = - dists.log_prob(samples) * - mloss
    return loss, means, sigs


def train(model, opt, iterations=3, batch=16):
    for i in range(iterations):
        x, y = make_batch(batch)
        opt.zero_grad()
        loss, means, sigs = reinforce_loss(model, x, y)
        loss.backward()  # expect: GG109
        opt.step()
        if i % 1000 == 0:
            print('{: 6} grad'.format(i), list(model.parameters())[0].grad.mean().item())
            print('      ', 'loss', F.mse_loss(means.detach(), y, reduction='none').mean(dim=0))
            print('      ', 'sigs', sigs.detach().mean(dim=0))


def main():
    torch.manual_seed(0)
    model = make_model()
    opt = torch.optim.Adam(model.parameters(), lr=0.0005)
    train(model, opt)


if __name__ == "__main__":
    main()
