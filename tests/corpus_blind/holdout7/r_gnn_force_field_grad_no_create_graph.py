# corpus: graph network potential: edge weights from nodal distances, energy per graph, forces as -dE/dpos from autograd.grad(retain_graph=True) without create_graph, so the force-matching term never trains the network
# source: https://github.com/pyg-team/pytorch_geometric/issues/1807
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GraphBatch:
    pos: torch.Tensor
    z: torch.Tensor
    edge_index: torch.Tensor
    batch: torch.Tensor
    energy: torch.Tensor
    forces: torch.Tensor


class DistanceConv(nn.Module):
    def __init__(self, channels, num_rbf=8, cutoff=3.0):
        super().__init__()
        self.register_buffer("centers", torch.linspace(0, cutoff, num_rbf))
        self.filter = nn.Sequential(nn.Linear(num_rbf, channels), nn.Tanh())
        self.lin = nn.Linear(channels, channels)

    def forward(self, h, pos, edge_index):
        src, dst = edge_index
        dist = (pos[src] - pos[dst]).norm(dim=-1, keepdim=True)
        rbf = torch.exp(-(dist - self.centers) ** 2)
        msg = self.filter(rbf) * h[src]
        agg = torch.zeros_like(h).index_add(0, dst, msg)
        return h + torch.tanh(self.lin(agg))


class EnergyGNN(nn.Module):
    def __init__(self, num_species=4, channels=16, layers=2):
        super().__init__()
        self.embed = nn.Embedding(num_species, channels)
        self.convs = nn.ModuleList([DistanceConv(channels) for _ in range(layers)])
        self.readout = nn.Linear(channels, 1)

    def forward(self, data):
        h = self.embed(data.z)
        for conv in self.convs:
            h = conv(h, data.pos, data.edge_index)
        atom_e = self.readout(h).squeeze(-1)
        num_graphs = int(data.batch.max()) + 1
        return torch.zeros(num_graphs).index_add(0, data.batch, atom_e)


def random_batch(num_graphs=3, atoms=5):
    pos = torch.randn(num_graphs * atoms, 3)
    z = torch.randint(0, 4, (num_graphs * atoms,))
    batch = torch.arange(num_graphs).repeat_interleave(atoms)
    edges = []
    for g in range(num_graphs):
        for i in range(atoms):
            for j in range(atoms):
                if i != j:
                    edges.append((g * atoms + i, g * atoms + j))
    edge_index = torch.tensor(edges).t()
    return GraphBatch(pos, z, edge_index, batch, torch.randn(num_graphs), torch.randn(num_graphs * atoms, 3))


class ForceFieldTrainer:
    def __init__(self, model, force_weight=10.0, lr=1e-3):
        self.model = model
        self.force_weight = force_weight
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def compute_loss(self, data):
        data.pos.requires_grad_(True)
        energy = self.model(data)
        forces = -torch.autograd.grad(energy.sum(), data.pos, retain_graph=True)[0]  # expect: GG202
        energy_loss = F.mse_loss(energy, data.energy)
        force_loss = F.mse_loss(forces, data.forces)
        return energy_loss + self.force_weight * force_loss, {"energy": energy_loss.item(), "forces": force_loss.item()}

    def train_step(self, data):
        self.optimizer.zero_grad()
        loss, logs = self.compute_loss(data)
        loss.backward()  # also: GG202
        self.optimizer.step()
        return logs


def main():
    torch.manual_seed(0)
    trainer = ForceFieldTrainer(EnergyGNN())
    for step in range(3):
        logs = trainer.train_step(random_batch())
    print(logs)


if __name__ == "__main__":
    main()
