# corpus: self-supervised depth trainer appends each training_step output dict, loss tensor included, to the epoch list; every batch's photometric-loss graph stays alive until epoch end
# source: https://github.com/TRI-ML/packnet-sfm/pull/51
import torch
import torch.nn as nn
import torch.nn.functional as F


class DepthNet(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(width, 16), nn.ReLU(), nn.Linear(16, width), nn.Sigmoid())

    def forward(self, image):
        return 2.0 * self.net(image)  # disparity in pixels


def warp(source, disparity):
    """Sample source at x - disparity with linear interpolation (1-D stand-in for view synthesis)."""
    width = source.size(-1)
    coords = torch.arange(width, dtype=source.dtype).expand_as(disparity) - disparity
    coords = coords.clamp(0, width - 1)
    left = coords.floor().long().clamp(max=width - 2)
    frac = coords - left
    return source.gather(-1, left) * (1 - frac) + source.gather(-1, left + 1) * frac


class SelfSupModel(nn.Module):
    def __init__(self, smooth_weight=1e-2):
        super().__init__()
        self.depth_net = DepthNet()
        self.smooth_weight = smooth_weight

    def training_step(self, batch, batch_idx):
        target, source = batch["rgb"], batch["rgb_context"]
        disp = self.depth_net(target)
        photometric = F.l1_loss(warp(source, disp), target)
        smoothness = (disp[:, 1:] - disp[:, :-1]).abs().mean()
        loss = photometric + self.smooth_weight * smoothness
        return {"loss": loss, "metrics": {"photometric_loss": photometric.item()}}  # also: GG301

    def training_epoch_end(self, output_batch):
        avg_train_loss = torch.stack([o["loss"] for o in output_batch]).mean()  # also: GG301
        avg_photo = sum(o["metrics"]["photometric_loss"] for o in output_batch) / len(output_batch)
        return {"avg_train-loss": avg_train_loss, "avg_photometric": avg_photo}


def make_dataloader(n_batches=4, batch_size=3, width=8):
    batches = []
    for _ in range(n_batches):
        scene = torch.rand(batch_size, width + 2)
        batches.append({"rgb": scene[:, 1:-1], "rgb_context": scene[:, 2:]})
    return batches


class BaseTrainer:
    def __init__(self, max_epochs=2):
        self.max_epochs = max_epochs

    def train(self, dataloader, module, optimizer):
        module.train()
        outputs = []
        for i, batch in enumerate(dataloader):
            optimizer.zero_grad()
            output = module.training_step(batch, i)
            output["loss"].backward()
            optimizer.step()
            outputs.append(output)  # expect: GG301
        return module.training_epoch_end(outputs)

    def fit(self, module):
        optimizer = torch.optim.Adam(module.parameters(), lr=1e-2)
        dataloader = make_dataloader()
        history = []
        for epoch in range(self.max_epochs):
            history.append(self.train(dataloader, module, optimizer))
        return history


if __name__ == "__main__":
    torch.manual_seed(0)
    model = SelfSupModel()
    for epoch, metrics in enumerate(BaseTrainer().fit(model)):
        print(epoch, metrics["avg_train-loss"].item(), round(metrics["avg_photometric"], 4))
