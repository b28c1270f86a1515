# corpus: ANI-style neural network potential trained on energies and forces (torchani nnp_training_force example); forces come from torch.autograd.grad(energies.sum(), coordinates, retain_graph=True) without create_graph=True, so the force loss is a constant and never trains the network
# source: https://github.com/aiqm/torchani/pull/238
import argparse
import math

import torch
import torch.nn as nn


def hartree2kcal(x):
    return 627.509 * x


class AEVComputer(nn.Module):
    """Radial atomic environment vectors: Gaussian-expanded pair distances with a cosine cutoff, per neighbour species."""

    def __init__(self, Rcr=5.2, EtaR=16.0, num_shifts=8, num_species=4):
        super().__init__()
        self.Rcr = Rcr
        self.num_species = num_species
        self.register_buffer("EtaR", torch.tensor(EtaR))
        self.register_buffer("ShfR", torch.linspace(0.9, Rcr, num_shifts))
        self.aev_length = num_shifts * num_species

    def forward(self, species_coordinates):
        species, coordinates = species_coordinates
        diff = coordinates.unsqueeze(2) - coordinates.unsqueeze(1)
        n_atoms = coordinates.size(1)
        eye = torch.eye(n_atoms, dtype=torch.bool)
        dist = (diff.pow(2).sum(-1) + eye).sqrt()  # keep sqrt differentiable on the diagonal
        fc = 0.5 * torch.cos(math.pi * dist / self.Rcr) + 0.5
        fc = fc * (dist <= self.Rcr) * (~eye)
        radial = 0.25 * torch.exp(-self.EtaR * (dist.unsqueeze(-1) - self.ShfR) ** 2) * fc.unsqueeze(-1)
        onehot = nn.functional.one_hot(species.clamp(min=0), self.num_species).to(coordinates.dtype)
        onehot = onehot * (species >= 0).unsqueeze(-1)
        aev = torch.einsum("bijs,bjk->biks", radial, onehot).reshape(species.size(0), n_atoms, -1)
        return species, aev


class ANIModel(nn.ModuleList):
    """One atomic network per element; the molecular energy is the sum of atomic energies."""

    def forward(self, species_aev):
        species, aev = species_aev
        output = aev.new_zeros(species.shape)
        for i, m in enumerate(self):
            mask = species == i
            atomic = m(aev).squeeze(-1)
            output = output + atomic * mask
        return species, output.sum(dim=1)


def atomic_net(aev_dim):
    return nn.Sequential(nn.Linear(aev_dim, 32), nn.CELU(0.1), nn.Linear(32, 16), nn.CELU(0.1), nn.Linear(16, 1))


def make_dataset(num_batches, chunks_per_batch, chunk_size, n_atoms, seed):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(num_batches):
        atomic = []
        energies = []
        for _ in range(chunks_per_batch):
            species = torch.randint(0, 4, (chunk_size, n_atoms), generator=g)
            coordinates = torch.randn(chunk_size, n_atoms, 3, generator=g) * 1.2
            forces = torch.randn(chunk_size, n_atoms, 3, generator=g) * 0.05
            atomic.append({"species": species, "coordinates": coordinates, "forces": forces})
            energies.append(torch.randn(chunk_size, generator=g) * 0.1)
        batches.append((None, {"energies": torch.cat(energies), "atomic": atomic}))
    return batches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_epochs", type=int, default=3)
    parser.add_argument("--force_coefficient", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    aev_computer = AEVComputer()
    nn_ = ANIModel([atomic_net(aev_computer.aev_length) for _ in range(4)])
    model = nn.Sequential(aev_computer, nn_)
    optimizer = torch.optim.Adam(nn_.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=100)

    training = make_dataset(3, 2, 4, 6, seed=1)
    validation = make_dataset(1, 2, 4, 6, seed=2)
    mse = torch.nn.MSELoss(reduction="none")
    mse_sum = torch.nn.MSELoss(reduction="sum")

    def validate():
        total_mse = 0.0
        count = 0
        for _, batch_y in validation:
            true_energies = batch_y["energies"]
            predicted_energies = []
            for chunk in batch_y["atomic"]:
                _, chunk_energies = model((chunk["species"], chunk["coordinates"]))
                predicted_energies.append(chunk_energies)
            predicted_energies = torch.cat(predicted_energies)
            total_mse += mse_sum(predicted_energies, true_energies).item()
            count += predicted_energies.shape[0]
        return hartree2kcal(math.sqrt(total_mse / count))

    for epoch in range(args.max_epochs):
        rmse = validate()
        print("RMSE:", rmse, "at epoch", epoch)
        scheduler.step(rmse)

        for i, (_, batch_y) in enumerate(training):
            true_energies = batch_y["energies"]
            predicted_energies = []
            num_atoms = []
            force_loss = []

            for chunk in batch_y["atomic"]:
                chunk_species = chunk["species"]
                chunk_coordinates = chunk["coordinates"]
                chunk_true_forces = chunk["forces"]
                chunk_num_atoms = (chunk_species >= 0).sum(dim=1).to(true_energies.dtype)
                num_atoms.append(chunk_num_atoms)

                # We must set `chunk_coordinates` to make it requires grad, so
                # that we could compute force from it
                chunk_coordinates.requires_grad_(True)

                _, chunk_energies = model((chunk_species, chunk_coordinates))

                # We can use torch.autograd.grad to compute force. Remember
                # to retain graph so that we can backward through it a second
                # time when computing gradient w.r.t. parameters.
                chunk_forces = -torch.autograd.grad(chunk_energies.sum(), chunk_coordinates, retain_graph=True)[0]  # expect: GG202

                # Now let's compute loss for force of this chunk
                chunk_force_loss = mse(chunk_true_forces, chunk_forces).sum(dim=(1, 2)) / chunk_num_atoms

                predicted_energies.append(chunk_energies)
                force_loss.append(chunk_force_loss)

            num_atoms = torch.cat(num_atoms)
            predicted_energies = torch.cat(predicted_energies)

            # Now the total loss has two parts, energy loss and force loss
            energy_loss = (mse(predicted_energies, true_energies) / num_atoms).mean()
            energy_loss = 0.5 * (torch.exp(2 * energy_loss) - 1)
            force_loss = torch.cat(force_loss).mean()
            loss = energy_loss + args.force_coefficient * force_loss

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print("epoch %d batch %d energy_loss %.5f force_loss %.5f" % (epoch, i, energy_loss.item(), force_loss.item()))


if __name__ == "__main__":
    main()
