# corpus: BaseModel.training_step appends its log dict (holding the live loss and predictions) to training_step_outputs every batch
# source: https://github.com/sktime/pytorch-forecasting/pull/1924
import torch
import torch.nn as nn
import torch.nn.functional as F


class BaseModel(nn.Module):
    def __init__(self, n_features=6, hidden=16, horizon=3, lr=1e-2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.Tanh(), nn.Linear(hidden, horizon))
        self.lr = lr
        self.training_step_outputs = []
        self.logged = {}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def log(self, name, value):
        self.logged[name] = value

    def step(self, x, y, batch_idx):
        prediction = self.net(x)
        loss = F.mse_loss(prediction, y)
        self.log("train_loss_step", loss.item())
        log = {"loss": loss, "n_samples": x.size(0), "prediction": prediction}  # also: GG301
        return log, prediction

    def training_step(self, batch, batch_idx):
        x, y = batch
        log, out = self.step(x, y, batch_idx)
        self.training_step_outputs.append(log)  # expect: GG301
        return log

    def on_train_epoch_start(self):
        self.training_step_outputs = []

    def on_train_epoch_end(self):
        losses = torch.stack([o["loss"] for o in self.training_step_outputs])
        weights = torch.tensor([float(o["n_samples"]) for o in self.training_step_outputs])
        self.log("train_loss_epoch", float((losses * weights).sum() / weights.sum()))


def fit(model, train_loader, max_epochs=2):
    optimizer = model.configure_optimizers()
    for epoch in range(max_epochs):
        model.on_train_epoch_start()
        for batch_idx, batch in enumerate(train_loader):
            out = model.training_step(batch, batch_idx)
            optimizer.zero_grad()
            out["loss"].backward()
            optimizer.step()
        model.on_train_epoch_end()
        print(epoch, model.logged["train_loss_epoch"])


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(10, 6), torch.randn(10, 3)) for _ in range(5)]
    model = BaseModel()
    fit(model, loader)
    return model


if __name__ == "__main__":
    model = main()
    # ground truth: every stored step output still holds a loss and a prediction with autograd history
    assert len(model.training_step_outputs) == 5
    assert all(o["loss"].grad_fn is not None for o in model.training_step_outputs)
    assert all(o["prediction"].requires_grad for o in model.training_step_outputs)
