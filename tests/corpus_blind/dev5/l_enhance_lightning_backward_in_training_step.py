# corpus: low-light enhancement LightningModule-style trainer; the user adds loss.backward() inside training_step while the trainer loop (automatic optimization) backpropagates the returned loss again
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TVLoss(nn.Module):
    def forward(self, x):
        h_tv = (x[:, :, 1:, :] - x[:, :, :-1, :]).pow(2).mean()
        w_tv = (x[:, :, :, 1:] - x[:, :, :, :-1]).pow(2).mean()
        return h_tv + w_tv


class UnetTMO(nn.Module):
    """Tiny stand-in for the tone-mapping U-Net: predicts a per-pixel gamma map."""

    def __init__(self, ch=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.ReLU(), nn.Conv2d(ch, ch, 3, stride=2, padding=1), nn.ReLU())
        self.dec = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU(), nn.Conv2d(ch, 3, 1))

    def forward(self, im):
        gamma = torch.sigmoid(self.dec(self.enc(im))) * 2.0 + 0.2
        out = im.clamp(1e-4, 1.0) ** gamma
        return out, gamma


class SimpleIQA(nn.Module):
    """No-reference exposure score used to pick the pseudo ground truth."""

    def forward(self, x):
        return -(x.mean(dim=1, keepdim=True) - 0.5).abs()


class PSENet(nn.Module):
    def __init__(self, tv_w, gamma_lower, gamma_upper, number_refs, lr):
        super().__init__()
        self.tv_w = tv_w
        self.gamma_lower = gamma_lower
        self.gamma_upper = gamma_upper
        self.number_refs = number_refs
        self.lr = lr
        self.model = UnetTMO()
        self.mse = nn.MSELoss()
        self.tv = TVLoss()
        self.iqa = SimpleIQA()
        self.saved_input = None
        self.saved_pseudo_gt = None
        self.logged = {}

    def configure_optimizers(self):
        return torch.optim.Adam(self.model.parameters(), lr=self.lr, betas=[0.9, 0.99])

    def log(self, name, value):
        self.logged[name] = float(value)

    def generate_pseudo_gt(self, im):
        bs, ch, h, w = im.shape
        under_ranges = torch.linspace(0, self.gamma_upper, steps=self.number_refs)
        under_gamma = torch.exp(torch.rand([bs, self.number_refs]) * under_ranges[None, :])
        over_ranges = torch.linspace(self.gamma_lower, 0, steps=self.number_refs)
        over_gamma = torch.exp(torch.rand([bs, self.number_refs]) * over_ranges[None, :])
        gammas = torch.cat([under_gamma, over_gamma], dim=1)
        synthetic_references = 1 - (1 - im[:, None]) ** gammas[:, :, None, None, None]
        previous_iter_output = self.model(im)[0].clone().detach()
        references = torch.cat([im[:, None], previous_iter_output[:, None], synthetic_references], dim=1)
        nref = references.shape[1]
        scores = self.iqa(references.view(bs * nref, ch, h, w)).view(bs, nref, 1, h, w)
        max_idx = torch.argmax(scores, dim=1)
        max_idx = max_idx.repeat(1, ch, 1, 1)[:, None]
        pseudo_gt = torch.gather(references, 1, max_idx)
        return pseudo_gt.squeeze(1)

    def training_step(self, batch, batch_idx):
        nth_input = batch
        nth_pseudo_gt = self.generate_pseudo_gt(batch)
        if self.saved_input is not None:
            im = self.saved_input
            pred_im, pred_gamma = self.model(im)
            pseudo_gt = self.saved_pseudo_gt
            reconstruction_loss = self.mse(pred_im, pseudo_gt)
            tv_loss = self.tv(pred_gamma)
            loss = reconstruction_loss + tv_loss * self.tv_w
            # added by the user: "loss does not go down, so backprop it here"
            loss.backward()
            self.log("total_loss", loss.item())
        else:
            loss = None
            self.log("total_loss", 0)
        self.saved_input = nth_input
        self.saved_pseudo_gt = nth_pseudo_gt
        return loss


class MiniTrainer:
    """Automatic optimization as the Lightning loop does it: zero_grad, training_step, backward, step."""

    def __init__(self, max_epochs):
        self.max_epochs = max_epochs

    def fit(self, module, loader):
        optimizer = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(loader):
                optimizer.zero_grad()
                loss = module.training_step(batch, batch_idx)
                if loss is None:
                    continue
                loss.backward()  # expect: GG101
                optimizer.step()
            print("epoch", epoch, module.logged)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tv_w", type=float, default=5.0)
    parser.add_argument("--gamma_lower", type=float, default=-2.0)
    parser.add_argument("--gamma_upper", type=float, default=3.0)
    parser.add_argument("--number_refs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=5e-4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    module = PSENet(args.tv_w, args.gamma_lower, args.gamma_upper, args.number_refs, args.lr)
    loader = [torch.rand(2, 3, 16, 16) * 0.3 for _ in range(4)]
    MiniTrainer(max_epochs=1).fit(module, loader)


if __name__ == "__main__":
    main()
