# corpus: GAN fitting sin(x) curves; D and G losses share one forward, opt_D.step() runs between D_loss.backward(retain_graph=True) and G_loss.backward()
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pytorch/pytorch/issues/39141
import numpy as np
import torch
import torch.nn as nn

BATCH_SIZE = 16
LR_G = 1e-4
LR_D = 1e-4
N_IDEAS = 5
ART_COMPONENTS = 15
PAINT_POINTS = np.vstack([np.linspace(-1, 1, ART_COMPONENTS) for _ in range(BATCH_SIZE)])


def artist_works():
    r = 0.02 * np.random.randn(1, ART_COMPONENTS)
    paintings = np.sin(PAINT_POINTS * np.pi) + r
    return torch.from_numpy(paintings).float()


torch.manual_seed(1)
np.random.seed(1)

G = nn.Sequential(nn.Linear(N_IDEAS, 32), nn.ReLU(), nn.Linear(32, ART_COMPONENTS))
D = nn.Sequential(nn.Linear(ART_COMPONENTS, 32), nn.ReLU(), nn.Linear(32, 1), nn.Sigmoid())

opt_D = torch.optim.Adam(D.parameters(), lr=LR_D)
opt_G = torch.optim.Adam(G.parameters(), lr=LR_G)

for step in range(5):
    artist_paintings = artist_works()
    G_ideas = torch.randn(BATCH_SIZE, N_IDEAS)
    G_paintings = G(G_ideas)

    prob_artist0 = D(artist_paintings)
    prob_artist1 = D(G_paintings)

    D_loss = -torch.mean(torch.log(prob_artist0) + torch.log(1.0 - prob_artist1))
    G_loss = torch.mean(torch.log(1.0 - prob_artist1))

    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)  # also: GG111
    opt_D.step()  # expect: GG111

    opt_G.zero_grad()
    G_loss.backward()  # also: GG111
    opt_G.step()

    if step % 2 == 0:
        print(step, D_loss.item(), G_loss.item())
