# corpus: SchNet-style GNN trained on energies and forces; the trainer calls model.eval() to switch dropout off, and the force module then builds forces without create_graph, so the force term adds nothing to the gradient
# source: https://github.com/atomistic-machine-learning/schnetpack/issues/279
import torch
import torch.nn as nn


def gaussian_rbf(d, n_rbf=8, cutoff=3.0):
    centers = torch.linspace(0, cutoff, n_rbf)
    return torch.exp(-4.0 * (d.unsqueeze(-1) - centers) ** 2)


class Interaction(nn.Module):
    def __init__(self, n_atom_basis, n_rbf):
        super().__init__()
        self.filter = nn.Sequential(nn.Linear(n_rbf, n_atom_basis), nn.Tanh())
        self.update = nn.Sequential(nn.Linear(n_atom_basis, n_atom_basis), nn.Tanh(), nn.Dropout(0.1))

    def forward(self, h, rbf, mask):
        messages = (self.filter(rbf) * h.unsqueeze(1) * mask.unsqueeze(-1)).sum(2)
        return h + self.update(messages)


class SchNetEnergy(nn.Module):
    def __init__(self, n_types=3, n_atom_basis=8, n_rbf=8, n_interactions=2):
        super().__init__()
        self.embedding = nn.Embedding(n_types, n_atom_basis)
        self.interactions = nn.ModuleList(Interaction(n_atom_basis, n_rbf) for _ in range(n_interactions))
        self.atomwise = nn.Sequential(nn.Linear(n_atom_basis, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, z, positions):
        d = (positions.unsqueeze(2) - positions.unsqueeze(1) + 1e-9).norm(dim=-1)
        mask = 1.0 - torch.eye(z.shape[1]).unsqueeze(0)
        rbf = gaussian_rbf(d)
        h = self.embedding(z)
        for interaction in self.interactions:
            h = interaction(h, rbf, mask)
        return self.atomwise(h).sum(dim=(1, 2))


class EnergyForceModel(nn.Module):
    def __init__(self, create_graph=True):
        super().__init__()
        self.representation = SchNetEnergy()
        self.create_graph = create_graph

    def forward(self, batch):
        positions = batch["positions"].requires_grad_()
        energy = self.representation(batch["z"], positions)
        create_graph = self.create_graph if self.training else False  # also: GG202
        grad = torch.autograd.grad(energy.sum(), positions, create_graph=create_graph, retain_graph=True)[0]  # expect: GG202
        return {"energy": energy, "forces": -grad}


def make_batch(n_mol=4, n_atoms=3):
    positions = torch.randn(n_mol, n_atoms, 3)
    z = torch.randint(0, 3, (n_mol, n_atoms))
    return {"z": z, "positions": positions, "energy": torch.randn(n_mol), "forces": torch.randn(n_mol, n_atoms, 3)}


class Trainer:
    def __init__(self, model, rho_force=0.9):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.rho_force = rho_force

    def loss_fn(self, pred, batch):
        err_e = ((pred["energy"] - batch["energy"]) ** 2).mean()
        err_f = ((pred["forces"] - batch["forces"]) ** 2).mean()
        return (1 - self.rho_force) * err_e + self.rho_force * err_f

    def train(self, n_steps):
        self.model.eval()  # also: GG202
        for step in range(n_steps):
            batch = make_batch()
            self.optimizer.zero_grad()
            loss = self.loss_fn(self.model(batch), batch)
            loss.backward()
            self.optimizer.step()
            print(step, round(loss.item(), 4))


def main():
    torch.manual_seed(0)
    model = EnergyForceModel()
    Trainer(model).train(n_steps=3)


if __name__ == "__main__":
    main()
