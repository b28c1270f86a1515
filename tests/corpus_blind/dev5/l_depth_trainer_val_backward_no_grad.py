# corpus: monodepth2-style self-supervised depth Trainer (models dict, process_batch, compute_losses returning a dict per scale); the modified val() also tries to adapt the model on the validation batch, but its losses were computed inside torch.no_grad()
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/nianticlabs/monodepth2/issues/24
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResnetEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_ch_enc = [8, 16]
        self.layer1 = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())

    def forward(self, x):
        f1 = self.layer1(x)
        f2 = self.layer2(f1)
        return [f1, f2]


class DepthDecoder(nn.Module):
    def __init__(self, num_ch_enc, scales=(0, 1)):
        super().__init__()
        self.scales = scales
        self.up2 = nn.Conv2d(num_ch_enc[1], num_ch_enc[0], 3, padding=1)
        self.disp1 = nn.Conv2d(num_ch_enc[0], 1, 3, padding=1)
        self.disp0 = nn.Conv2d(num_ch_enc[0], 1, 3, padding=1)

    def forward(self, features):
        outputs = {}
        x = F.interpolate(F.elu(self.up2(features[1])), scale_factor=2, mode="nearest") + features[0]
        outputs[("disp", 1)] = torch.sigmoid(self.disp1(x))
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        outputs[("disp", 0)] = torch.sigmoid(self.disp0(x))
        return outputs


class PoseDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(6, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2))

    def forward(self, a, b):
        return 0.05 * torch.tanh(self.net(torch.cat([a, b], 1)))


def get_smooth_loss(disp, img):
    grad_disp_x = torch.abs(disp[:, :, :, :-1] - disp[:, :, :, 1:])
    grad_disp_y = torch.abs(disp[:, :, :-1, :] - disp[:, :, 1:, :])
    grad_img_x = torch.mean(torch.abs(img[:, :, :, :-1] - img[:, :, :, 1:]), 1, keepdim=True)
    grad_img_y = torch.mean(torch.abs(img[:, :, :-1, :] - img[:, :, 1:, :]), 1, keepdim=True)
    grad_disp_x *= torch.exp(-grad_img_x)
    grad_disp_y *= torch.exp(-grad_img_y)
    return grad_disp_x.mean() + grad_disp_y.mean()


class Trainer:
    def __init__(self, options):
        self.opt = options
        self.models = {"encoder": ResnetEncoder()}
        self.models["depth"] = DepthDecoder(self.models["encoder"].num_ch_enc, self.opt.scales)
        self.models["pose"] = PoseDecoder()
        self.parameters_to_train = []
        for m in self.models.values():
            self.parameters_to_train += list(m.parameters())
        self.model_optimizer = torch.optim.Adam(self.parameters_to_train, self.opt.learning_rate)
        self.model_lr_scheduler = torch.optim.lr_scheduler.StepLR(self.model_optimizer, self.opt.scheduler_step_size, 0.1)
        self.train_loader = [self.make_inputs() for _ in range(2)]
        self.val_iter = iter([self.make_inputs() for _ in range(2)])
        self.step = 0

    def make_inputs(self):
        b, h, w = self.opt.batch_size, self.opt.height, self.opt.width
        return {("color_aug", 0, 0): torch.rand(b, 3, h, w), ("color", 0, 0): torch.rand(b, 3, h, w), ("color", 1, 0): torch.rand(b, 3, h, w)}

    def set_train(self):
        for m in self.models.values():
            m.train()

    def set_eval(self):
        for m in self.models.values():
            m.eval()

    def train(self):
        for self.epoch in range(self.opt.num_epochs):
            self.run_epoch()

    def run_epoch(self):
        self.set_train()
        for batch_idx, inputs in enumerate(self.train_loader):
            outputs, losses = self.process_batch(inputs)
            self.model_optimizer.zero_grad()
            losses["loss"].backward()
            self.model_optimizer.step()
            if batch_idx % self.opt.log_frequency == 0:
                print("epoch %d batch %d loss %.4f" % (self.epoch, batch_idx, losses["loss"].item()))
                self.val()
            self.step += 1
        self.model_lr_scheduler.step()

    def process_batch(self, inputs):
        features = self.models["encoder"](inputs["color_aug", 0, 0])
        outputs = self.models["depth"](features)
        outputs["translation"] = self.models["pose"](inputs["color_aug", 0, 0], inputs["color", 1, 0])
        self.generate_images_pred(inputs, outputs)
        losses = self.compute_losses(inputs, outputs)
        return outputs, losses

    def generate_images_pred(self, inputs, outputs):
        b, _, h, w = inputs["color", 0, 0].shape
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
        base = torch.stack([xs, ys], -1).unsqueeze(0).expand(b, h, w, 2)
        for scale in self.opt.scales:
            disp = F.interpolate(outputs[("disp", scale)], [h, w], mode="bilinear", align_corners=False)
            shift = outputs["translation"].view(b, 1, 1, 2) * disp.permute(0, 2, 3, 1)
            outputs[("color", 1, scale)] = F.grid_sample(inputs["color", 1, 0], base + shift, padding_mode="border", align_corners=True)

    def compute_reprojection_loss(self, pred, target):
        return torch.abs(target - pred).mean(1, True)

    def compute_losses(self, inputs, outputs):
        losses = {}
        total_loss = 0
        for scale in self.opt.scales:
            disp = outputs[("disp", scale)]
            color = F.interpolate(inputs["color", 0, 0], size=disp.shape[-2:], mode="bilinear", align_corners=False)
            reprojection_loss = self.compute_reprojection_loss(outputs[("color", 1, scale)], inputs["color", 0, 0]).mean()
            mean_disp = disp.mean(2, True).mean(3, True)
            norm_disp = disp / (mean_disp + 1e-7)
            smooth_loss = get_smooth_loss(norm_disp, color)
            loss = reprojection_loss + self.opt.disparity_smoothness * smooth_loss / (2 ** scale)
            total_loss += loss
            losses["loss/{}".format(scale)] = loss
        total_loss /= len(self.opt.scales)
        losses["loss"] = total_loss
        return losses

    def val(self):
        """Validate the model on a single minibatch, then adapt on it."""
        self.set_eval()
        try:
            inputs = next(self.val_iter)
        except StopIteration:
            self.val_iter = iter([self.make_inputs() for _ in range(2)])
            inputs = next(self.val_iter)
        with torch.no_grad():
            outputs, losses = self.process_batch(inputs)
            print("val loss %.4f" % losses["loss"].item())
        self.set_train()
        self.model_optimizer.zero_grad()
        losses["loss"].backward()  # expect: GG106
        self.model_optimizer.step()


def main():
    parser = argparse.ArgumentParser(description="Monodepthv2 options")
    parser.add_argument("--height", type=int, default=16)
    parser.add_argument("--width", type=int, default=24)
    parser.add_argument("--scales", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--learning_rate", type=float, default=1e-4)
    parser.add_argument("--num_epochs", type=int, default=1)
    parser.add_argument("--scheduler_step_size", type=int, default=15)
    parser.add_argument("--disparity_smoothness", type=float, default=1e-3)
    parser.add_argument("--log_frequency", type=int, default=1)
    opts = parser.parse_args([])
    torch.manual_seed(0)
    trainer = Trainer(opts)
    trainer.train()


if __name__ == "__main__":
    main()
