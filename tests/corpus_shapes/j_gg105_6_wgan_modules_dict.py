# corpus: WGAN with Generator/Critic nn.Module subclasses; samples kept in a dict, critic scores out["fake"] undetached, then the generator loss reuses out["fake"]
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG105.md (shape: 6, 3)
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=4, out_dim=2):
        super().__init__()
        self.z_dim = z_dim
        self.blocks = nn.ModuleList([nn.Linear(z_dim, 8), nn.Linear(8, out_dim)])

    def sample_noise(self, n):
        return torch.randn(n, self.z_dim)

    def forward(self, n):
        h = torch.tanh(self.blocks[0](self.sample_noise(n)))
        return self.blocks[1](h)


class Critic(nn.Module):
    def __init__(self, in_dim=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 8), nn.ReLU(), nn.Linear(8, 1))

    def score(self, x):
        return self.net(x).mean()

    def forward(self, x):
        return self.score(x)


torch.manual_seed(0)
gen = Generator()
critic = Critic()
opt_g = torch.optim.RMSprop(gen.parameters(), lr=5e-5)
opt_c = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
history = []
for step in range(2):
    out = {"real": torch.randn(8, 2), "fake": gen(8)}
    scores = {k: critic(v) for k, v in out.items()}  # expect: GG105
    losses = {"critic": scores["fake"] - scores["real"]}
    opt_c.zero_grad()
    losses["critic"].backward()
    opt_c.step()
    losses["gen"] = -critic(out["fake"])
    opt_g.zero_grad()
    losses["gen"].backward()  # also: GG105
    opt_g.step()
    history.append({k: v.item() for k, v in losses.items()})
print(history)
