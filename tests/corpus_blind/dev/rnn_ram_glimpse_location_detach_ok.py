# corpus: recurrent visual attention model carries h_t across glimpses within a batch; location and baseline heads read h_t.detach() and the reward uses baselines.detach() (correct)
# source: https://github.com/kevinzakka/recurrent-visual-attention/issues/37
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal


class GlimpseNetwork(nn.Module):
    def __init__(self, img_dim, h_g, h_l, hidden):
        super().__init__()
        self.fc1 = nn.Linear(img_dim, h_g)
        self.fc2 = nn.Linear(2, h_l)
        self.fc3 = nn.Linear(h_g, hidden)
        self.fc4 = nn.Linear(h_l, hidden)

    def forward(self, x, l_t_prev):
        # stand-in for retina extraction: scale the image by the glimpse location
        phi = x.flatten(1) * (1.0 + 0.1 * l_t_prev.sum(1, keepdim=True))
        what = self.fc3(F.relu(self.fc1(phi)))
        where = self.fc4(F.relu(self.fc2(l_t_prev)))
        return F.relu(what + where)


class CoreNetwork(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.i2h = nn.Linear(hidden, hidden)
        self.h2h = nn.Linear(hidden, hidden)

    def forward(self, g_t, h_t_prev):
        return F.relu(self.i2h(g_t) + self.h2h(h_t_prev))


class LocationNetwork(nn.Module):
    def __init__(self, hidden, std):
        super().__init__()
        self.std = std
        self.fc = nn.Linear(hidden, hidden // 2)
        self.fc_lt = nn.Linear(hidden // 2, 2)

    def forward(self, h_t):
        feat = F.relu(self.fc(h_t.detach()))
        mu = torch.tanh(self.fc_lt(feat))
        l_t = Normal(mu, self.std).rsample().detach()
        log_pi = Normal(mu, self.std).log_prob(l_t).sum(dim=1)
        return log_pi, torch.clamp(l_t, -1, 1)


class RecurrentAttention(nn.Module):
    def __init__(self, img_dim=36, hidden=16, num_classes=4, std=0.1):
        super().__init__()
        self.sensor = GlimpseNetwork(img_dim, 12, 6, hidden)
        self.rnn = CoreNetwork(hidden)
        self.locator = LocationNetwork(hidden, std)
        self.classifier = nn.Linear(hidden, num_classes)
        self.baseliner = nn.Linear(hidden, 1)

    def forward(self, x, l_t_prev, h_t_prev, last=False):
        h_t = self.rnn(self.sensor(x, l_t_prev), h_t_prev)
        log_pi, l_t = self.locator(h_t)
        b_t = self.baseliner(h_t.detach()).squeeze(1)
        if last:
            return h_t, l_t, b_t, F.log_softmax(self.classifier(h_t), dim=1), log_pi
        return h_t, l_t, b_t, log_pi


class Trainer:
    def __init__(self, model, num_glimpses=4, hidden=16):
        self.model, self.num_glimpses, self.hidden = model, num_glimpses, hidden
        self.optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)

    def reset(self, batch):
        return torch.zeros(batch, self.hidden), torch.empty(batch, 2).uniform_(-1, 1)

    def train_one_batch(self, x, y):
        h_t, l_t = self.reset(x.size(0))
        log_pi, baselines = [], []
        for t in range(self.num_glimpses - 1):
            h_t, l_t, b_t, p = self.model(x, l_t, h_t)
            baselines.append(b_t)
            log_pi.append(p)
        h_t, l_t, b_t, log_probas, p = self.model(x, l_t, h_t, last=True)
        baselines.append(b_t)
        log_pi.append(p)
        baselines, log_pi = torch.stack(baselines, 1), torch.stack(log_pi, 1)
        R = (log_probas.argmax(1).detach() == y).float().unsqueeze(1).repeat(1, self.num_glimpses)
        loss_action = F.nll_loss(log_probas, y)
        loss_baseline = F.mse_loss(baselines, R)
        adjusted_reward = R - baselines.detach()
        loss_reinforce = torch.mean(torch.sum(-log_pi * adjusted_reward, dim=1))
        loss = loss_action + loss_baseline + 0.01 * loss_reinforce
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(RecurrentAttention())
    losses = [trainer.train_one_batch(torch.rand(5, 1, 6, 6), torch.randint(0, 4, (5,))) for _ in range(3)]
    assert all(isinstance(l, float) for l in losses)
    assert all(p.grad is not None for p in trainer.model.parameters())
