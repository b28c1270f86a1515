# corpus: two-head (MSE + cross-entropy) training loop sums the raw loss tensors into running_loss / running_loss_MSE / running_loss_cross_entropy
# source: https://github.com/samuelyu2002/ImVisible/issues/2
import torch
import torch.nn as nn


class LytNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.mode_head = nn.Linear(32, 5)
        self.point_head = nn.Linear(32, 4)

    def forward(self, x):
        h = self.backbone(x)
        return self.mode_head(h), self.point_head(h)


def train_epoch(net, loader, optimizer, ce, mse, mse_weight=0.5):
    net.train()
    running_loss = 0
    running_loss_MSE = 0
    running_loss_cross_entropy = 0
    for images, modes, points in loader:
        optimizer.zero_grad()
        pred_modes, pred_points = net(images)
        cross_entropy = ce(pred_modes, modes)
        MSE = mse(pred_points, points)
        loss = cross_entropy + mse_weight * MSE
        loss.backward()
        optimizer.step()

        running_loss += loss  # expect: GG301
        running_loss_MSE += MSE  # expect: GG301
        running_loss_cross_entropy += cross_entropy  # expect: GG301
    n = len(loader)
    return {"loss": running_loss / n, "mse": running_loss_MSE / n, "ce": running_loss_cross_entropy / n}


def validate(net, loader, ce, mse, mse_weight=0.5):
    net.eval()
    val_running_loss = 0
    val_mse_loss = 0
    val_ce_loss = 0
    with torch.no_grad():
        for images, modes, points in loader:
            pred_modes, pred_points = net(images)
            cross_entropy = ce(pred_modes, modes)
            MSE = mse(pred_points, points)
            loss = cross_entropy + mse_weight * MSE
            val_running_loss += loss
            val_mse_loss += MSE
            val_ce_loss += cross_entropy
    n = len(loader)
    return {"loss": val_running_loss / n, "mse": val_mse_loss / n, "ce": val_ce_loss / n}


def make_loader(n_batches):
    return [(torch.randn(8, 20), torch.randint(0, 5, (8,)), torch.rand(8, 4)) for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    net = LytNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    ce, mse = nn.CrossEntropyLoss(), nn.MSELoss()
    train_loader, val_loader = make_loader(6), make_loader(2)
    for epoch in range(2):
        train_stats = train_epoch(net, train_loader, optimizer, ce, mse)
        val_stats = validate(net, val_loader, ce, mse)
        print(epoch, {k: round(float(v), 4) for k, v in train_stats.items()}, float(val_stats["loss"]))
    return train_stats, val_stats


if __name__ == "__main__":
    train_stats, val_stats = main()
    # ground truth: the three training accumulators carry the graphs of all batches; validation ones do not
    assert all(v.grad_fn is not None for v in train_stats.values())
    assert all(v.grad_fn is None for v in val_stats.values())
