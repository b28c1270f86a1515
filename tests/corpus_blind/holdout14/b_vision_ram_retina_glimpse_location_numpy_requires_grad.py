# corpus: Recurrent Attention Model (recurrent-visual-attention shape: Retina, GlimpseNetwork, CoreNetwork, LocationNetwork, RecurrentAttention): the retina converts the sampled glimpse location to numpy to compute patch coordinates, but the location now comes straight from the location network's reparameterised sample and still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/kevinzakka/recurrent-visual-attention/issues/4
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Retina:
    def __init__(self, g=4, k=2, s=2):
        self.g, self.k, self.s = g, k, s

    def denormalize(self, T, coords):
        return (0.5 * ((coords + 1.0) * T)).astype(np.int64)

    def extract_patch(self, x, l, size):
        B, C, H, W = x.shape
        start = self.denormalize(H, l.numpy())  # expect: GG110
        x = F.pad(x, (size // 2, size // 2, size // 2, size // 2))
        patches = [x[i, :, start[i, 1]:start[i, 1] + size, start[i, 0]:start[i, 0] + size] for i in range(B)]
        return torch.stack(patches)

    def foveate(self, x, l):
        phi, size = [], self.g
        for _ in range(self.k):
            patch = self.extract_patch(x, l, size)
            phi.append(F.avg_pool2d(patch, size // self.g))
            size = int(self.s * size)
        return torch.cat(phi, 1).view(x.shape[0], -1)


class GlimpseNetwork(nn.Module):
    def __init__(self, h_g, h_l, g, k, s, c):
        super().__init__()
        self.retina = Retina(g, k, s)
        self.fc1 = nn.Linear(k * g * g * c, h_g)
        self.fc2 = nn.Linear(2, h_l)
        self.fc3 = nn.Linear(h_g, h_g + h_l)
        self.fc4 = nn.Linear(h_l, h_g + h_l)

    def forward(self, x, l_t_prev):
        phi = self.retina.foveate(x, l_t_prev)
        what = self.fc3(F.relu(self.fc1(phi)))
        where = self.fc4(F.relu(self.fc2(l_t_prev)))
        return F.relu(what + where)


class CoreNetwork(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.i2h, self.h2h = nn.Linear(input_size, hidden_size), nn.Linear(hidden_size, hidden_size)

    def forward(self, g_t, h_t_prev):
        return F.relu(self.i2h(g_t) + self.h2h(h_t_prev))


class LocationNetwork(nn.Module):
    def __init__(self, input_size, std=0.1):
        super().__init__()
        self.std = std
        self.fc = nn.Linear(input_size, 2)

    def forward(self, h_t):
        mu = torch.tanh(self.fc(h_t.detach()))
        dist = torch.distributions.Normal(mu, self.std)
        l_t = dist.rsample()
        log_pi = dist.log_prob(l_t).sum(dim=1)
        return log_pi, torch.clamp(l_t, -1, 1)


class RecurrentAttention(nn.Module):
    def __init__(self, g=4, k=2, s=2, c=1, h_g=16, h_l=16, hidden=32, num_classes=10):
        super().__init__()
        self.sensor = GlimpseNetwork(h_g, h_l, g, k, s, c)
        self.rnn = CoreNetwork(h_g + h_l, hidden)
        self.locator = LocationNetwork(hidden)
        self.classifier = nn.Linear(hidden, num_classes)
        self.baseliner = nn.Linear(hidden, 1)

    def forward(self, x, l_t_prev, h_t_prev, last=False):
        h_t = self.rnn(self.sensor(x, l_t_prev), h_t_prev)
        log_pi, l_t = self.locator(h_t)
        b_t = self.baseliner(h_t).squeeze(1)
        if last:
            return h_t, l_t, b_t, F.log_softmax(self.classifier(h_t), dim=1), log_pi
        return h_t, l_t, b_t, log_pi


class Trainer:
    def __init__(self, model, num_glimpses=3, hidden=32):
        self.model, self.num_glimpses, self.hidden = model, num_glimpses, hidden
        self.optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)

    def train_one_batch(self, x, y):
        B = x.shape[0]
        h_t, l_t = torch.zeros(B, self.hidden), torch.empty(B, 2).uniform_(-1, 1)
        log_pi, baselines = [], []
        for _ in range(self.num_glimpses - 1):
            h_t, l_t, b_t, p = self.model(x, l_t, h_t)
            log_pi.append(p)
            baselines.append(b_t)
        h_t, l_t, b_t, log_probas, p = self.model(x, l_t, h_t, last=True)
        log_pi.append(p)
        baselines.append(b_t)
        baselines, log_pi = torch.stack(baselines, 1), torch.stack(log_pi, 1)
        R = (log_probas.argmax(1) == y).float().unsqueeze(1).repeat(1, self.num_glimpses)
        adjusted_reward = R - baselines.detach()
        loss = (F.nll_loss(log_probas, y) + F.mse_loss(baselines, R)
                + torch.sum(-log_pi * adjusted_reward, dim=1).mean())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = Trainer(RecurrentAttention())
    for step in range(2):
        x, y = torch.rand(4, 1, 16, 16), torch.randint(0, 10, (4,))
        print(f"step {step} loss {trainer.train_one_batch(x, y):.4f}")


if __name__ == "__main__":
    main()
