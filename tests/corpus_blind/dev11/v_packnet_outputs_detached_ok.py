# corpus: packnet-sfm-style trainer keeps every training_step output for training_epoch_end, but detaches output["loss"] after backward before appending it; correct
# source: https://github.com/TRI-ML/packnet-sfm/pull/51
import torch
import torch.nn as nn
import torch.nn.functional as F


class DepthNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ELU(), nn.Conv2d(8, 8, 3, padding=1), nn.ELU())
        self.disp = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, rgb):
        return torch.sigmoid(self.disp(self.encoder(rgb)))


class SupModel(nn.Module):
    """Lightning-like module: training_step returns a dict, training_epoch_end reduces the list."""

    def __init__(self, min_depth=0.5, max_depth=10.0):
        super().__init__()
        self.depth_net = DepthNet()
        self.min_depth, self.max_depth = min_depth, max_depth

    def disp_to_depth(self, disp):
        min_disp, max_disp = 1 / self.max_depth, 1 / self.min_depth
        return 1 / (min_disp + (max_disp - min_disp) * disp)

    def training_step(self, batch, batch_idx):
        depth = self.disp_to_depth(self.depth_net(batch["rgb"]))
        valid = batch["depth"] > 0
        loss = F.l1_loss(torch.log(depth[valid]), torch.log(batch["depth"][valid]))
        with torch.no_grad():
            abs_rel = ((depth[valid] - batch["depth"][valid]).abs() / batch["depth"][valid]).mean()
        return {"loss": loss, "metrics": {"abs_rel": abs_rel}}

    def training_epoch_end(self, output_batch):
        avg_train_loss = torch.stack([x["loss"] for x in output_batch]).mean()
        avg_abs_rel = torch.stack([x["metrics"]["abs_rel"] for x in output_batch]).mean()
        return {"avg_train-loss": avg_train_loss.item(), "avg_train-abs_rel": avg_abs_rel.item()}


class HorovodTrainer:
    def __init__(self, max_epochs=2):
        self.max_epochs = max_epochs

    def fit(self, module, dataloader):
        optimizer = torch.optim.Adam(module.parameters(), lr=2e-3)
        for epoch in range(self.max_epochs):
            logs = self.train(dataloader, module, optimizer)
            print(f"epoch {epoch}: {logs}")

    def train(self, dataloader, module, optimizer):
        module.train()
        outputs = []
        for i, batch in enumerate(dataloader):
            optimizer.zero_grad()
            output = module.training_step(batch, i)
            output["loss"].backward()
            optimizer.step()
            output["loss"] = output["loss"].detach()
            outputs.append(output)
        return module.training_epoch_end(outputs)


def make_kitti_like(n=4, b=2, h=6, w=8):
    data = []
    for _ in range(n):
        depth = 1 + 9 * torch.rand(b, 1, h, w)
        depth[torch.rand(b, 1, h, w) < 0.3] = 0.0  # sparse lidar
        data.append({"rgb": torch.randn(b, 3, h, w), "depth": depth})
    return data


def main():
    torch.manual_seed(0)
    module = SupModel()
    w0 = module.depth_net.disp.weight.detach().clone()
    HorovodTrainer().fit(module, make_kitti_like())
    print("disp weight changed:", (module.depth_net.disp.weight - w0).abs().max().item() > 0)


if __name__ == "__main__":
    main()
