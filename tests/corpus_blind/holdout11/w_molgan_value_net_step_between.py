# corpus: MolGAN-style solver backpropagates the generator loss with retain_graph, steps the generator, then backpropagates the value-network loss built on the same generated graph
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/kfzyqin/Implementation-MolGAN-PyTorch/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F

N_ATOMS, ATOM_TYPES, BOND_TYPES, Z_DIM = 4, 3, 2, 5


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(Z_DIM, 16), nn.Tanh())
        self.edges_layer = nn.Linear(16, N_ATOMS * N_ATOMS * BOND_TYPES)
        self.nodes_layer = nn.Linear(16, N_ATOMS * ATOM_TYPES)

    def forward(self, z):
        h = self.body(z)
        edges = self.edges_layer(h).view(-1, N_ATOMS, N_ATOMS, BOND_TYPES)
        edges = (edges + edges.transpose(1, 2)) / 2
        nodes = self.nodes_layer(h).view(-1, N_ATOMS, ATOM_TYPES)
        return F.softmax(edges, -1), F.softmax(nodes, -1)


class GraphCritic(nn.Module):
    """Used both as discriminator D and as reward (value) network V."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(N_ATOMS * N_ATOMS * BOND_TYPES + N_ATOMS * ATOM_TYPES, 16),
                                 nn.Tanh(), nn.Linear(16, 1))

    def forward(self, adj, nodes):
        return self.net(torch.cat([adj.flatten(1), nodes.flatten(1)], dim=1))


def reward(adj, nodes):
    """Stand-in for an RDKit property score: fraction of atoms of type 0."""
    with torch.no_grad():
        return (nodes.argmax(-1) == 0).float().mean(-1, keepdim=True)


class Solver:
    def __init__(self, la=0.5):
        self.G, self.D, self.V = Generator(), GraphCritic(), GraphCritic()
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), 1e-3)
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), 1e-3)
        self.v_optimizer = torch.optim.Adam(self.V.parameters(), 1e-3)
        self.la = la

    def reset_grad(self):
        self.g_optimizer.zero_grad()
        self.d_optimizer.zero_grad()
        self.v_optimizer.zero_grad()

    def sample_real(self, bs):
        nodes = F.one_hot(torch.randint(0, ATOM_TYPES, (bs, N_ATOMS)), ATOM_TYPES).float()
        adj = F.one_hot(torch.randint(0, BOND_TYPES, (bs, N_ATOMS, N_ATOMS)), BOND_TYPES).float()
        return adj, nodes

    def train_or_valid(self, bs=6):
        real_adj, real_nodes = self.sample_real(bs)
        z = torch.randn(bs, Z_DIM)
        # =================== Train the discriminator =================== #
        fake_adj, fake_nodes = self.G(z)
        loss_D = self.D(fake_adj.detach(), fake_nodes.detach()).mean() - self.D(real_adj, real_nodes).mean()
        self.reset_grad()
        loss_D.backward()
        self.d_optimizer.step()
        # =============== Train the generator and value net ============== #
        logits_fake = self.D(fake_adj, fake_nodes)
        value_logits_real = self.V(real_adj, real_nodes)
        value_logits_fake = self.V(fake_adj, fake_nodes)
        loss_G = -logits_fake.mean()
        loss_V = (value_logits_real - reward(real_adj, real_nodes)).pow(2).mean() + \
                 (value_logits_fake - reward(fake_adj, fake_nodes)).pow(2).mean()
        loss_RL = -value_logits_fake.mean()
        train_step_G = self.la * loss_G + (1 - self.la) * loss_RL
        train_step_V = loss_V
        self.reset_grad()
        train_step_G.backward(retain_graph=True)  # also: GG111
        self.g_optimizer.step()  # expect: GG111
        train_step_V.backward()  # also: GG111
        self.v_optimizer.step()
        return {"D/loss": loss_D.item(), "G/loss": loss_G.item(), "V/loss": loss_V.item()}


def main():
    torch.manual_seed(0)
    solver = Solver()
    for epoch_i in range(3):
        print(epoch_i, solver.train_or_valid())


if __name__ == "__main__":
    main()
