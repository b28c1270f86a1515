# corpus: pix2pixHD-style model: MultiscaleDiscriminator returns a list of per-scale feature lists; GAN and feature-matching losses are summed over the lists
# source: https://github.com/NVIDIA/pix2pixHD/issues/146
import torch
import torch.nn as nn
import torch.nn.functional as F


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc, ndf=8, n_layers=2):
        super().__init__()
        self.n_layers = n_layers
        dims = [input_nc] + [ndf * (2 ** i) for i in range(n_layers)]
        for n in range(n_layers):
            setattr(self, "model" + str(n), nn.Sequential(nn.Linear(dims[n], dims[n + 1]), nn.LeakyReLU(0.2)))
        setattr(self, "model" + str(n_layers), nn.Linear(dims[-1], 1))

    def forward(self, input):
        res = [input]
        for n in range(self.n_layers + 1):
            model = getattr(self, "model" + str(n))
            res.append(model(res[-1]))
        return res[1:]


class MultiscaleDiscriminator(nn.Module):
    def __init__(self, input_nc, num_D=2):
        super().__init__()
        self.num_D = num_D
        self.scales = nn.ModuleList([NLayerDiscriminator(input_nc // (2 ** i)) for i in range(num_D)])

    def singleD_forward(self, model, input):
        return model(input)

    def forward(self, input):
        result = []
        input_downsampled = input
        for i in range(self.num_D):
            result.append(self.singleD_forward(self.scales[i], input_downsampled))
            if i != self.num_D - 1:
                input_downsampled = F.avg_pool1d(input_downsampled.unsqueeze(1), 2).squeeze(1)
        return result


class GANLoss(nn.Module):
    def forward(self, input, target_is_real):
        losses = []
        for pred in input:
            pred = pred[-1]
            target = torch.ones_like(pred) if target_is_real else torch.zeros_like(pred)
            losses.append(F.mse_loss(pred, target))
        return torch.stack(losses).sum()


class Pix2PixHDModel(nn.Module):
    def __init__(self, dim=8, lambda_feat=10.0):
        super().__init__()
        self.netG = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, dim), nn.Tanh())
        self.netD = MultiscaleDiscriminator(2 * dim)
        self.criterionGAN = GANLoss()
        self.lambda_feat = lambda_feat

    def discriminate(self, label, image, use_pool=False):
        input_concat = torch.cat((label, image.detach() if use_pool else image), dim=1)
        return self.netD(input_concat)

    def forward(self, label, real_image):
        fake_image = self.netG(label)
        pred_fake_pool = self.discriminate(label, fake_image, use_pool=True)
        loss_D_fake = self.criterionGAN(pred_fake_pool, False)
        pred_real = self.discriminate(label, real_image)
        loss_D_real = self.criterionGAN(pred_real, True)
        pred_fake = self.netD(torch.cat((label, fake_image), dim=1))
        loss_G_GAN = self.criterionGAN(pred_fake, True)
        feat_terms = []
        for i in range(self.netD.num_D):
            for j in range(len(pred_fake[i]) - 1):
                feat_terms.append(F.l1_loss(pred_fake[i][j], pred_real[i][j].detach()))
        loss_G_GAN_Feat = torch.stack(feat_terms).sum() * self.lambda_feat / self.netD.num_D
        return [loss_G_GAN, loss_G_GAN_Feat, loss_D_real, loss_D_fake], fake_image


def main():
    torch.manual_seed(0)
    model = Pix2PixHDModel()
    optimizer_G = torch.optim.Adam(model.netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizer_D = torch.optim.Adam(model.netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    loss_log = []
    for _ in range(3):
        label, real = torch.randn(4, 8), torch.rand(4, 8) * 2 - 1
        losses, generated = model(label, real)
        loss_dict = dict(zip(["G_GAN", "G_GAN_Feat", "D_real", "D_fake"], losses))
        loss_D = (loss_dict["D_fake"] + loss_dict["D_real"]) * 0.5
        loss_G = loss_dict["G_GAN"] + loss_dict["G_GAN_Feat"]

        optimizer_G.zero_grad()
        loss_G.backward()
        optimizer_G.step()

        optimizer_D.zero_grad()
        loss_D.backward()
        optimizer_D.step()
        loss_log.append({k: v.item() for k, v in loss_dict.items()})
    return model, loss_log


if __name__ == "__main__":
    model, loss_log = main()
    assert all(p.grad is not None for p in model.netG.parameters())
    assert all(p.grad is not None for p in model.netD.parameters())
    assert all(isinstance(v, float) for entry in loss_log for v in entry.values())
