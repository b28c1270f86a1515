# corpus: learned force field trained by rolling a velocity-Verlet integrator in windows; the simulation state (pos, vel) is carried into the next window without detach, so the second window's backward reaches the freed graph of the first
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/TorchSim/torch-sim/pull/564
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class SimState:
    pos: torch.Tensor
    vel: torch.Tensor


class ForceField(nn.Module):
    def __init__(self, dim=3, hidden=32):
        super().__init__()
        self.energy = nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, pos):
        return self.energy(pos)


def reference_force(pos):
    # harmonic well as the "DFT" ground truth
    return -2.0 * pos


def compute_forces(model, pos):
    if not pos.requires_grad:
        pos = pos.requires_grad_(True)
    energy = model(pos).sum()
    # conservative forces F = -dE/dx, kept differentiable for the force-matching loss
    return -torch.autograd.grad(energy, pos, create_graph=True)[0]


def verlet_step(model, state, dt):
    force = compute_forces(model, state.pos)
    vel_half = state.vel + 0.5 * dt * force
    pos_new = state.pos + dt * vel_half
    force_new = compute_forces(model, pos_new)
    vel_new = vel_half + 0.5 * dt * force_new
    return SimState(pos=pos_new, vel=vel_new), force_new


class RolloutTrainer:
    def __init__(self, n_atoms=8, window=4, dt=0.05):
        self.model = ForceField()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.criterion = nn.MSELoss()
        self.window = window
        self.dt = dt
        self.state = SimState(pos=torch.randn(n_atoms, 3), vel=torch.zeros(n_atoms, 3))

    def integrate(self, n_steps):
        losses = []
        state = self.state
        for _ in range(n_steps):
            state, force = verlet_step(self.model, state, self.dt)
            losses.append(self.criterion(force, reference_force(state.pos)))
        return state, torch.stack(losses).mean()

    def train_window(self):
        self.optimizer.zero_grad()
        new_state, loss = self.integrate(self.window)
        loss.backward()  # also: GG104
        self.optimizer.step()
        self.state = new_state  # expect: GG104
        return loss.item()


def main():
    torch.manual_seed(0)
    trainer = RolloutTrainer()
    for window in range(5):
        print(f"window {window}: force loss {trainer.train_window():.4f}")


if __name__ == "__main__":
    main()
