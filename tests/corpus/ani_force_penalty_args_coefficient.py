# corpus: a potential-energy network trained on energies and forces; the forces come from autograd.grad of the energy w.r.t. the coordinates without create_graph=True, so the force term (weighted by a command-line coefficient) trains nothing
import argparse

import torch
import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--force_coefficient", type=float, default=0.5)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(2):
        coordinates = torch.randn(8, 3).requires_grad_(True)
        true_energy = torch.randn(8)
        true_forces = torch.randn(8, 3)
        energy = model(coordinates).squeeze(-1)
        forces = -torch.autograd.grad(energy.sum(), coordinates, retain_graph=True)[0]  # expect: GG202
        energy_loss = (energy - true_energy).pow(2).mean()
        force_loss = (forces - true_forces).pow(2).mean()
        loss = energy_loss + args.force_coefficient * force_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
