# corpus: HMR trainer (human mesh recovery with an adversarial pose prior): one discriminator pass over cat(mosh thetas, predicted thetas) feeds both the encoder loss and the discriminator loss; e_loss.backward(retain_graph=True) and e_opt.step() run first, then d_loss.backward() walks back through the encoder weights the step just changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/MandyMo/pytorch_HMR/issues/15
from collections import OrderedDict

import torch
import torch.nn as nn


class Config:
    batch_size = 4
    batch_3d_size = 4
    adv_batch_size = 8
    iter_count = 3
    e_loss_weight = 60.0
    e_3d_loss_weight = 60.0
    d_loss_weight = 1.0
    enable_inter_supervision = False


class HMRNetBase(nn.Module):
    """Encoder + iterative regressor producing (thetas, 2d keypoints, 3d keypoints)."""

    def __init__(self, feat_dim=32, theta_dim=85, n_kp=14):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                     nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(32, feat_dim), nn.ReLU())
        self.regressor = nn.Sequential(nn.Linear(feat_dim + theta_dim, 64), nn.ReLU(), nn.Linear(64, theta_dim))
        self.kp_2d = nn.Linear(theta_dim, n_kp * 2)
        self.kp_3d = nn.Linear(theta_dim, n_kp * 3)
        self.theta_dim, self.n_kp = theta_dim, n_kp

    def forward(self, images):
        feature = self.encoder(images)
        theta = torch.zeros(images.shape[0], self.theta_dim)
        outputs = []
        for _ in range(2):
            theta = theta + self.regressor(torch.cat([feature, theta], dim=1))
            kp2d = self.kp_2d(theta).view(-1, self.n_kp, 2)
            kp3d = self.kp_3d(theta).view(-1, self.n_kp, 3)
            outputs.append((theta, kp2d, kp3d))
        return outputs


class Discriminator(nn.Module):
    def __init__(self, theta_dim=85):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(theta_dim, 32), nn.ReLU(), nn.Linear(32, 25))

    def forward(self, real_thetas, predict_thetas):
        return self.net(torch.cat([real_thetas, predict_thetas], dim=0))


class HMRTrainer:
    def __init__(self, args):
        self.args = args
        self.generator = HMRNetBase()
        self.discriminator = Discriminator()
        self.e_opt = torch.optim.Adam(self.generator.parameters(), lr=1e-4, weight_decay=1e-4)
        self.d_opt = torch.optim.Adam(self.discriminator.parameters(), lr=1e-4, weight_decay=1e-4)

    def next_batch(self):
        a = self.args
        data_2d = {"image": torch.randn(a.batch_size, 3, 16, 16), "kp_2d": torch.rand(a.batch_size, 14, 3)}
        data_3d = {"image": torch.randn(a.batch_3d_size, 3, 16, 16), "kp_2d": torch.rand(a.batch_3d_size, 14, 3),
                   "kp_3d": torch.randn(a.batch_3d_size, 14, 3), "theta": torch.randn(a.batch_3d_size, 85),
                   "w_3d": torch.ones(a.batch_3d_size), "w_smpl": torch.ones(a.batch_3d_size)}
        data_mosh = {"theta": torch.randn(a.adv_batch_size, 85)}
        return data_2d, data_3d, data_mosh

    def train(self):
        e_opt, d_opt = self.e_opt, self.d_opt
        self.generator.train()
        self.discriminator.train()
        for iter_index in range(self.args.iter_count):
            data_2d, data_3d, data_mosh = self.next_batch()
            n2d, nmosh = data_2d["image"].shape[0], data_mosh["theta"].shape[0]
            images = torch.cat((data_2d["image"], data_3d["image"]), dim=0)
            generator_outputs = self.generator(images)
            loss_kp_2d, loss_kp_3d, loss_shape, e_disc_loss, d_disc_loss = self._calc_loss(
                generator_outputs[-1], n2d, nmosh, data_2d, data_3d, data_mosh)

            e_loss = loss_kp_2d + loss_kp_3d + loss_shape + e_disc_loss
            d_loss = d_disc_loss

            e_opt.zero_grad()
            e_loss.backward(retain_graph=True)  # also: GG111
            e_opt.step()  # expect: GG111

            d_opt.zero_grad()
            d_loss.backward()  # also: GG111
            d_opt.step()

            iter_msg = OrderedDict([("iter", iter_index), ("e_loss", e_loss.item()),
                                    ("e_disc_loss", e_disc_loss.item()), ("d_disc_loss", d_disc_loss.item())])
            print(iter_msg)

    def _calc_loss(self, generator_output, n2d, nmosh, data_2d, data_3d, data_mosh):
        predict_thetas, predict_2d_kp, predict_3d_kp = generator_output
        theta_disc_value = self.discriminator(data_mosh["theta"], predict_thetas)
        real_2d_kp = torch.cat((data_2d["kp_2d"], data_3d["kp_2d"]), dim=0)
        loss_kp_2d = self.batch_kp_2d_l1_loss(real_2d_kp, predict_2d_kp) * self.args.e_loss_weight
        loss_kp_3d = ((data_3d["kp_3d"] - predict_3d_kp[n2d:]) ** 2).sum((1, 2)).matmul(data_3d["w_3d"]) \
            / data_3d["w_3d"].shape[0] * self.args.e_3d_loss_weight
        shape_dif = (data_3d["theta"][:, 75:] - predict_thetas[n2d:, 75:]) ** 2
        loss_shape = shape_dif.sum(1).matmul(data_3d["w_smpl"]) / shape_dif.shape[0] * self.args.e_3d_loss_weight
        e_disc_value, d_disc_value = theta_disc_value[nmosh:, :], theta_disc_value[:nmosh, :]
        e_disc_loss = self.batch_encoder_disc_l2_loss(e_disc_value) * self.args.d_loss_weight
        d_disc_loss = self.batch_adv_disc_l2_loss(d_disc_value, e_disc_value) * self.args.d_loss_weight
        return loss_kp_2d, loss_kp_3d, loss_shape, e_disc_loss, d_disc_loss

    def batch_kp_2d_l1_loss(self, real_2d_kp, predict_2d_kp):
        kp_gt = real_2d_kp.view(-1, 3)
        vis = kp_gt[:, 2]
        dif_abs = torch.abs(kp_gt[:, :2] - predict_2d_kp.contiguous().view(-1, 2)).sum(1)
        return torch.matmul(dif_abs, vis) * 1.0 / kp_gt.shape[0]

    def batch_encoder_disc_l2_loss(self, disc_value):
        return torch.sum((disc_value - 1.0) ** 2) * 1.0 / disc_value.shape[0]

    def batch_adv_disc_l2_loss(self, real_disc_value, fake_disc_value):
        ka, kb = real_disc_value.shape[0], fake_disc_value.shape[0]
        return torch.sum(fake_disc_value ** 2) / kb + torch.sum((real_disc_value - 1) ** 2) / ka


def main():
    torch.manual_seed(0)
    trainer = HMRTrainer(Config())
    trainer.train()


if __name__ == "__main__":
    main()
