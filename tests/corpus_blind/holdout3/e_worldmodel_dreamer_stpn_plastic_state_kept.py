# corpus: Dreamer-style world model whose RSSM core is a short-term-plasticity (STPN) cell that keeps its synaptic state self.F on the module between training batches without detaching it
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/NM512/dreamerv3-torch/issues/22
import torch
import torch.nn as nn
import torch.nn.functional as F


class STPNCell(nn.Module):
    """F_t = lambda * F_{t-1} + gamma * h_{t-1} [x_t, h_{t-1}]^T,  h_t = tanh((W + F_t) [x_t, h_{t-1}] + b)"""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        fan_in = input_size + hidden_size
        self.weight = nn.Parameter(torch.randn(hidden_size, fan_in) / fan_in ** 0.5)
        self.bias = nn.Parameter(torch.zeros(hidden_size))
        self.plast_lambda = nn.Parameter(torch.full((hidden_size, fan_in), 0.5))
        self.plast_gamma = nn.Parameter(torch.full((hidden_size, fan_in), 0.01))
        self.F = None  # short-term synaptic state, persists across calls

    def forward(self, x, h):
        xh = torch.cat([x, h], dim=-1)
        if self.F is None:
            self.F = torch.zeros(x.shape[0], *self.weight.shape)
        # Hebbian update from the previous hidden state, then use the modulated weights
        self.F = self.plast_lambda * self.F + self.plast_gamma * torch.einsum("bi,bj->bij", h, xh)  # expect: GG104
        w_eff = self.weight.unsqueeze(0) + self.F
        return torch.tanh(torch.einsum("bij,bj->bi", w_eff, xh) + self.bias)


class RSSM(nn.Module):
    def __init__(self, stoch=4, deter=8, act_dim=2, embed=8):
        super().__init__()
        self._stoch, self._deter = stoch, deter
        self._cell = STPNCell(stoch + act_dim, deter)
        self._prior = nn.Linear(deter, 2 * stoch)
        self._post = nn.Linear(deter + embed, 2 * stoch)

    def _stats(self, x):
        mean, std = x.chunk(2, dim=-1)
        return {"mean": mean, "std": F.softplus(std) + 0.1}

    def observe(self, embed, action):
        batch, length = action.shape[:2]
        stoch = torch.zeros(batch, self._stoch)
        deter = torch.zeros(batch, self._deter)
        feats, priors, posts = [], [], []
        for t in range(length):
            deter = self._cell(torch.cat([stoch, action[:, t]], -1), deter)
            prior = self._stats(self._prior(deter))
            post = self._stats(self._post(torch.cat([deter, embed[:, t]], -1)))
            stoch = post["mean"] + post["std"] * torch.randn_like(post["std"])
            feats.append(torch.cat([stoch, deter], -1))
            priors.append(prior)
            posts.append(post)
        return torch.stack(feats, 1), priors, posts

    def kl_loss(self, posts, priors):
        kl = 0.0
        for post, prior in zip(posts, priors):
            p = torch.distributions.Normal(post["mean"], post["std"])
            q = torch.distributions.Normal(prior["mean"], prior["std"])
            kl = kl + torch.distributions.kl_divergence(p, q).sum(-1).mean()
        return kl / len(posts)


class WorldModel(nn.Module):
    def __init__(self, obs_dim=10, act_dim=2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 16), nn.ELU(), nn.Linear(16, 8))
        self.dynamics = RSSM(act_dim=act_dim)
        self.heads = nn.ModuleDict({"decoder": nn.Linear(12, obs_dim), "reward": nn.Linear(12, 1)})
        self._model_opt = torch.optim.Adam(self.parameters(), lr=3e-4)

    def _train(self, data):
        embed = self.encoder(data["image"])
        feat, priors, posts = self.dynamics.observe(embed, data["action"])
        losses = {
            "image": F.mse_loss(self.heads["decoder"](feat), data["image"]),
            "reward": F.mse_loss(self.heads["reward"](feat).squeeze(-1), data["reward"]),
            "kl": self.dynamics.kl_loss(posts, priors),
        }
        model_loss = sum(losses.values())
        self._model_opt.zero_grad()
        model_loss.backward()  # also: GG104
        self._model_opt.step()
        return {k: v.item() for k, v in losses.items()}


def sample_batch(batch=4, length=5, obs_dim=10, act_dim=2):
    return {"image": torch.randn(batch, length, obs_dim), "action": torch.randn(batch, length, act_dim),
            "reward": torch.randn(batch, length)}


if __name__ == "__main__":
    torch.manual_seed(0)
    wm = WorldModel()
    for step in range(3):
        metrics = wm._train(sample_batch())
        print(step, metrics)
