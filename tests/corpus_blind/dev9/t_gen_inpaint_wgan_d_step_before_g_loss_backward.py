# corpus: inpainting WGAN trainer returns a dict of D and G losses from one forward; the loop steps optimizer_d and then backpropagates losses['g'] through the discriminator weights that step just changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/daa233/generative-inpainting-pytorch/issues/38
import torch
import torch.nn as nn
import torch.nn.functional as F


class CoarseGenerator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim * 2, 64), nn.ELU(), nn.Linear(64, dim), nn.Tanh())

    def forward(self, x, mask):
        return self.net(torch.cat([x, mask], dim=1))


class GlobalDis(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


class Trainer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.netG = CoarseGenerator(config["dim"])
        self.globalD = GlobalDis(config["dim"])
        self.optimizer_g = torch.optim.Adam(self.netG.parameters(), lr=config["lr"], betas=(0.5, 0.9))
        self.optimizer_d = torch.optim.Adam(self.globalD.parameters(), lr=config["lr"], betas=(0.5, 0.9))

    def dis_forward(self, netD, ground_truth, x_inpaint):
        batch = torch.cat([ground_truth, x_inpaint], dim=0)
        pred = netD(batch)
        real_pred, fake_pred = torch.chunk(pred, 2, dim=0)
        return real_pred, fake_pred

    def forward(self, x, mask, ground_truth, compute_loss_g):
        losses = {}
        x_out = self.netG(x, mask)
        x_inpaint = x_out * mask + x * (1.0 - mask)

        real_pred, fake_pred = self.dis_forward(self.globalD, ground_truth, x_inpaint.detach())
        losses["wgan_d"] = torch.mean(fake_pred - real_pred)

        if compute_loss_g:
            losses["l1"] = F.l1_loss(x_inpaint * mask, ground_truth * mask)
            _, fake_pred_g = self.dis_forward(self.globalD, ground_truth, x_inpaint)
            losses["wgan_g"] = -torch.mean(fake_pred_g)
        return losses, x_inpaint


def mask_image(ground_truth):
    mask = (torch.rand_like(ground_truth) < 0.3).float()
    return ground_truth * (1.0 - mask), mask


def main():
    torch.manual_seed(0)
    config = {"dim": 16, "lr": 1e-4, "batch_size": 6, "niter": 4, "n_critic": 1,
              "l1_loss_alpha": 1.2, "gan_loss_alpha": 0.001}
    trainer = Trainer(config)

    for iteration in range(1, config["niter"] + 1):
        ground_truth = torch.rand(config["batch_size"], config["dim"]) * 2 - 1
        x, mask = mask_image(ground_truth)

        compute_g_loss = iteration % config["n_critic"] == 0
        losses, inpainted_result = trainer(x, mask, ground_truth, compute_g_loss)

        # Update D
        trainer.optimizer_d.zero_grad()
        losses["d"] = losses["wgan_d"]
        losses["d"].backward()
        trainer.optimizer_d.step()  # expect: GG111

        # Update G
        if compute_g_loss:
            trainer.optimizer_g.zero_grad()
            losses["g"] = losses["l1"] * config["l1_loss_alpha"] + losses["wgan_g"] * config["gan_loss_alpha"]
            losses["g"].backward()  # also: GG111
            trainer.optimizer_g.step()

        print("Iter", iteration, {k: round(v.item(), 4) for k, v in losses.items()})


if __name__ == "__main__":
    main()
