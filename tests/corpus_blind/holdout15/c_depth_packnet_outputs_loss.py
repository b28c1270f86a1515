# corpus: Self-supervised depth trainer keeps every batch's output dict (including the graph-carrying output['loss']) in an epoch-long outputs list, so each iteration's graph stays alive until the epoch ends.
# source: https://github.com/TRI-ML/packnet-sfm/issues/47
import torch
import torch.nn as nn
import torch.nn.functional as F


class DepthNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.dec = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, x):
        return torch.sigmoid(self.dec(self.enc(x)))


class SelfSupModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.depth_net = DepthNet()

    def forward(self, batch):
        inv_depth = self.depth_net(batch['rgb'])
        warped = batch['rgb_context'] * inv_depth
        photometric = F.l1_loss(warped, batch['rgb'])
        smoothness = (inv_depth[..., 1:] - inv_depth[..., :-1]).abs().mean()
        return {'loss': photometric + 0.001 * smoothness, 'metrics': {'photo': photometric.detach()}}


class HorovodTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train(self, dataloader, epoch):
        self.model.train()
        outputs = []
        for i, batch in enumerate(dataloader):
            self.optimizer.zero_grad()
            output = self.model(batch)
            output['loss'].backward()
            self.optimizer.step()
            outputs.append(output)  # expect: GG301
        return self.training_epoch_end(outputs, epoch)

    def training_epoch_end(self, outputs, epoch):
        avg = sum(o['loss'].item() for o in outputs) / len(outputs)
        print("epoch", epoch, "avg loss", round(avg, 4))
        return avg


def make_loader(n=3):
    return [{'rgb': torch.rand(2, 3, 8, 8), 'rgb_context': torch.rand(2, 3, 8, 8)} for _ in range(n)]


def main():
    torch.manual_seed(0)
    trainer = HorovodTrainer(SelfSupModel())
    loader = make_loader()
    for epoch in range(2):
        trainer.train(loader, epoch)


if __name__ == "__main__":
    main()
