# corpus: pix2pix-turbo style trainer whose generator GAN step backpropagates lossG through the discriminator (D is never frozen), and the discriminator's .grad is not cleared before the real-image D backward, so optimizer_disc.step() applies the generator's gradient on D together with the real-image loss.
# source: https://github.com/GaParmar/img2img-turbo/issues/56
import torch
import torch.nn as nn
import torch.nn.functional as F


class Pix2PixTurbo(nn.Module):
    def __init__(self, ch=3, hid=8):
        super().__init__()
        self.unet = nn.Sequential(nn.Conv2d(ch, hid, 3, padding=1), nn.SiLU(), nn.Conv2d(hid, ch, 3, padding=1))

    def forward(self, c_t, prompt_tokens=None, deterministic=True):
        return torch.tanh(self.unet(c_t))


class VisionAidedDiscriminator(nn.Module):
    """multilevel_sigmoid_s style head: returns the per-sample loss for the requested role."""

    def __init__(self, ch=3, hid=8):
        super().__init__()
        self.cv_ensemble = nn.Sequential(nn.Conv2d(ch, hid, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(hid, 1))

    def forward(self, x, for_real=False, for_G=False):
        logits = self.cv_ensemble(x)
        if for_G or for_real:
            return F.softplus(-logits)
        return F.softplus(logits)


class FrozenLPIPS(nn.Module):
    def __init__(self, ch=3, hid=4):
        super().__init__()
        self.feat = nn.Conv2d(ch, hid, 3, padding=1)
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, a, b):
        return (self.feat(a) - self.feat(b)).pow(2).mean(dim=(1, 2, 3))


class Pix2PixTurboTrainer:
    def __init__(self, args):
        self.args = args
        self.net_pix2pix = Pix2PixTurbo()
        self.net_disc = VisionAidedDiscriminator()
        self.net_lpips = FrozenLPIPS()
        self.layers_to_opt = list(self.net_pix2pix.parameters())
        self.optimizer = torch.optim.AdamW(self.layers_to_opt, lr=args["learning_rate"])
        self.optimizer_disc = torch.optim.AdamW(self.net_disc.parameters(), lr=args["learning_rate"])
        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: 1.0)
        self.lr_scheduler_disc = torch.optim.lr_scheduler.LambdaLR(self.optimizer_disc, lambda s: 1.0)

    def train_step(self, batch):
        args = self.args
        x_src = batch["conditioning_pixel_values"]
        x_tgt = batch["output_pixel_values"]
        self.x_tgt = x_tgt
        # forward pass + reconstruction loss
        x_tgt_pred = self.net_pix2pix(x_src, prompt_tokens=batch["input_ids"], deterministic=True)
        loss_l2 = F.mse_loss(x_tgt_pred.float(), x_tgt.float(), reduction="mean") * args["lambda_l2"]
        loss_lpips = self.net_lpips(x_tgt_pred.float(), x_tgt.float()).mean() * args["lambda_lpips"]
        loss = loss_l2 + loss_lpips
        loss.backward(retain_graph=False)
        torch.nn.utils.clip_grad_norm_(self.layers_to_opt, args["max_grad_norm"])
        self.optimizer.step()
        self.lr_scheduler.step()
        self.optimizer.zero_grad(set_to_none=args["set_grads_to_none"])

        # Generator loss: fool the discriminator
        x_tgt_pred = self.net_pix2pix(x_src, prompt_tokens=batch["input_ids"], deterministic=True)
        self.x_tgt_pred = x_tgt_pred.detach()
        lossG = self.net_disc(x_tgt_pred, for_G=True).mean() * args["lambda_gan"]
        lossG.backward()
        torch.nn.utils.clip_grad_norm_(self.layers_to_opt, args["max_grad_norm"])
        self.optimizer.step()
        self.lr_scheduler.step()
        self.optimizer.zero_grad(set_to_none=args["set_grads_to_none"])

        # Discriminator loss: fake image vs real image
        lossD_real = self.net_disc(x_tgt.detach(), for_real=True).mean() * args["lambda_gan"]
        lossD_real.mean().backward()  # expect: GG201
        torch.nn.utils.clip_grad_norm_(self.net_disc.parameters(), args["max_grad_norm"])
        self.optimizer_disc.step()  # also: GG201
        self.lr_scheduler_disc.step()
        self.optimizer_disc.zero_grad(set_to_none=args["set_grads_to_none"])
        lossD_fake = self.net_disc(x_tgt_pred.detach(), for_real=False).mean() * args["lambda_gan"]
        lossD_fake.mean().backward()
        torch.nn.utils.clip_grad_norm_(self.net_disc.parameters(), args["max_grad_norm"])
        self.optimizer_disc.step()
        self.optimizer_disc.zero_grad(set_to_none=args["set_grads_to_none"])
        lossD = lossD_real + lossD_fake
        return {"lossG": lossG.detach().item(), "lossD": lossD.detach().item(),
                "loss_l2": loss_l2.detach().item(), "loss_lpips": loss_lpips.detach().item()}


def make_batch(b=2, hw=8):
    return {"conditioning_pixel_values": torch.rand(b, 3, hw, hw) * 2 - 1,
            "output_pixel_values": torch.rand(b, 3, hw, hw) * 2 - 1,
            "input_ids": torch.zeros(b, 4, dtype=torch.long)}


ARGS = {"learning_rate": 1e-4, "lambda_l2": 1.0, "lambda_lpips": 5.0, "lambda_gan": 0.5,
        "max_grad_norm": 10.0, "set_grads_to_none": True}


def main():
    torch.manual_seed(0)
    trainer = Pix2PixTurboTrainer(ARGS)
    for global_step in range(3):
        logs = trainer.train_step(make_batch())
        print(global_step, {k: round(v, 4) for k, v in logs.items()})


if __name__ == "__main__":
    main()
