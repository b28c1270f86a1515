# corpus: trainer's Loss returns total + per-term contributions; LossStat accumulates detached copies and the history keeps floats (correct)
# source: https://github.com/mir-group/nequip/pull/1
import torch
import torch.nn as nn


class EnergyForceModel(nn.Module):
    def __init__(self, n_atoms=4, d=8):
        super().__init__()
        self.embed = nn.Linear(3, d)
        self.energy_head = nn.Linear(d, 1)
        self.force_head = nn.Linear(d, 3)

    def forward(self, pos):
        h = torch.tanh(self.embed(pos))
        return {"total_energy": self.energy_head(h).sum(dim=1), "forces": self.force_head(h)}


class Loss:
    def __init__(self, coeffs):
        self.coeffs = coeffs
        self.funcs = {"total_energy": nn.MSELoss(), "forces": nn.L1Loss()}

    def __call__(self, pred, ref):
        contrib = {k: self.funcs[k](pred[k], ref[k]) for k in self.coeffs}
        loss = sum(self.coeffs[k] * v for k, v in contrib.items())
        return loss, contrib


class LossStat:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sums = {}
        self.n = 0

    def __call__(self, loss, loss_contrib):
        results = {"loss": loss.detach()}
        results.update({k: v.detach() for k, v in loss_contrib.items()})
        for k, v in results.items():
            self.sums[k] = self.sums.get(k, 0.0) + v
        self.n += 1
        return results

    def current_result(self):
        return {k: (v / self.n).item() for k, v in self.sums.items()}


class Trainer:
    def __init__(self, model, coeffs, lr=5e-3):
        self.model = model
        self.loss = Loss(coeffs)
        self.loss_stat = LossStat()
        self.optim = torch.optim.Adam(model.parameters(), lr=lr)
        self.batch_losses = []
        self.history = []

    def batch_step(self, data):
        self.optim.zero_grad()
        out = self.model(data["pos"])
        loss, loss_contrib = self.loss(pred=out, ref=data)
        loss.backward()
        self.optim.step()
        self.batch_losses.append(self.loss_stat(loss, loss_contrib))

    def epoch_step(self, loader):
        self.loss_stat.reset()
        self.batch_losses = []
        for data in loader:
            self.batch_step(data)
        self.history.append(self.loss_stat.current_result())


def main():
    torch.manual_seed(0)
    loader = [{"pos": torch.randn(5, 4, 3), "total_energy": torch.randn(5, 1), "forces": torch.randn(5, 4, 3)} for _ in range(4)]
    trainer = Trainer(EnergyForceModel(), {"total_energy": 1.0, "forces": 10.0})
    for _ in range(2):
        trainer.epoch_step(loader)
    return trainer


if __name__ == "__main__":
    trainer = main()
    assert all(p.grad is not None for p in trainer.model.parameters())
    assert all(v.grad_fn is None and not v.requires_grad for d in trainer.batch_losses for v in d.values())
    assert all(v.grad_fn is None for v in trainer.loss_stat.sums.values())
    assert all(isinstance(v, float) for h in trainer.history for v in h.values())
