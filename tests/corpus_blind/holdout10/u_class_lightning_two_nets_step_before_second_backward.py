# corpus: hand-written Lightning-style co-training module (two nets that read each other's encodings) steps optimizer1 between loss_net1.backward(retain_graph=True) and loss_net2.backward(), whose graph still holds net1's old weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/2172
import torch
import torch.nn as nn
import torch.nn.functional as F


class PeerNet(nn.Module):
    def __init__(self, in_dim=8, code_dim=6, out_dim=3):
        super().__init__()
        self.enc1 = nn.Linear(in_dim, 16)
        self.enc2 = nn.Linear(16, code_dim)
        self.head = nn.Linear(2 * code_dim, out_dim)

    def encode(self, x):
        return self.enc2(torch.relu(self.enc1(x)))

    def forward(self, x, peer_code):
        return self.head(torch.cat([self.encode(x), peer_code], dim=1))


class CoTrainingModule(nn.Module):
    """LightningModule written by hand: configure_optimizers / training_step."""

    def __init__(self):
        super().__init__()
        self.net1 = PeerNet(out_dim=1)
        self.net2 = PeerNet(out_dim=3)
        self._optimizers = None

    def configure_optimizers(self):
        opt1 = torch.optim.Adam(self.net1.parameters(), lr=1e-3)
        opt2 = torch.optim.Adam(self.net2.parameters(), lr=1e-3)
        self._optimizers = (opt1, opt2)
        return self._optimizers

    def optimizers(self):
        return self._optimizers

    def training_step(self, batch, batch_idx):
        x, y_reg, y_cls = batch
        optimizer1, optimizer2 = self.optimizers()
        output1 = self.net1(x, self.net2.encode(x))
        output2 = self.net2(x, self.net1.encode(x))
        loss_net1 = F.mse_loss(output1.squeeze(1), y_reg)
        loss_net2 = F.cross_entropy(output2, y_cls)

        optimizer1.zero_grad()
        # want the loss to backprop through net2 as well
        loss_net1.backward(retain_graph=True)
        optimizer1.step()  # expect: GG111

        optimizer2.zero_grad()
        loss_net2.backward()  # also: GG111
        optimizer2.step()
        return {"loss_net1": loss_net1.item(), "loss_net2": loss_net2.item()}


class MiniTrainer:
    def __init__(self, max_epochs=2):
        self.max_epochs = max_epochs

    def fit(self, module, loader):
        module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(loader):
                logs = module.training_step(batch, batch_idx)
            print(f"epoch {epoch}: {logs}")


def make_loader(n_batches=4, batch_size=16):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, 8, generator=g)
        y_reg = x[:, :2].sum(dim=1)
        y_cls = torch.randint(0, 3, (batch_size,), generator=g)
        batches.append((x, y_reg, y_cls))
    return batches


def main():
    torch.manual_seed(0)
    MiniTrainer(max_epochs=2).fit(CoTrainingModule(), make_loader())


if __name__ == "__main__":
    main()
