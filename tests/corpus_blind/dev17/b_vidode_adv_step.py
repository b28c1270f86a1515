# corpus: Video-prediction GAN trainer (Vid-ODE style) that builds the generator's adversarial loss through both discriminators, then runs the discriminators' backward and optimizer_netD.step() before loss_netG.backward(), so the generator backward needs discriminator weights the step changed in place.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/psh01087/Vid-ODE/issues/6
import torch
import torch.nn as nn
import torch.optim as optim


class ConvNormAct(nn.Module):
    def __init__(self, in_ch, out_ch, kernel_size, stride, padding, act_type="relu"):
        super().__init__()
        layers = [nn.Conv2d(in_ch, out_ch, kernel_size, stride, padding), nn.InstanceNorm2d(out_ch)]
        if act_type == "relu":
            layers += [nn.ReLU(inplace=True)]
        elif act_type == "lrelu":
            layers += [nn.LeakyReLU(0.2)]
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)


class Discriminator(nn.Module):
    def __init__(self, in_ch, seq=False):
        super().__init__()
        self.seq = seq
        self.layer_1 = nn.Sequential(nn.Conv2d(in_ch, 8, kernel_size=4, stride=2, padding=1, bias=False), nn.LeakyReLU(0.2))
        self.layer_2 = ConvNormAct(8, 16, kernel_size=4, stride=2, padding=1, act_type="lrelu")
        self.last_conv = nn.Conv2d(16, 4, kernel_size=3, stride=1, padding=1, bias=False)

    def forward(self, x):
        return self.last_conv(self.layer_2(self.layer_1(x)))

    def rearrange_seq(self, real, fake, input_real, only_fake=True):
        b, t, c, h, w = fake.size()
        fake_seqs = torch.cat([torch.cat([input_real[:, i:, ...], fake[:, :i + 1, ...]], dim=1) for i in range(t)], dim=0)
        fake_seqs = fake_seqs.view(b * t, -1, h, w)
        if only_fake:
            return fake_seqs
        real_seqs = torch.cat([torch.cat([input_real[:, i:, ...], real[:, :i + 1, ...]], dim=1) for i in range(t)], dim=0)
        return real_seqs.view(b * t, -1, h, w), fake_seqs

    def netD_adv_loss(self, real, fake, input_real):
        if self.seq:
            real, fake = self.rearrange_seq(real, fake, input_real, only_fake=False)
        else:
            b, t, c, h, w = fake.size()
            real = real.contiguous().view(-1, c, h, w)
            fake = fake.contiguous().view(-1, c, h, w)
        pred_fake = self.forward(fake.detach())
        pred_real = self.forward(real)
        loss_fake = torch.mean(pred_fake ** 2)
        loss_real = torch.mean((pred_real - torch.ones_like(pred_real)) ** 2)
        return (loss_real + loss_fake) * 0.5

    def netG_adv_loss(self, fake, input_real):
        b, t, c, h, w = fake.size()
        if self.seq:
            fake = self.rearrange_seq(None, fake, input_real, only_fake=True)
        else:
            fake = fake.contiguous().view(-1, c, h, w)
        pred_fake = self.forward(fake)
        return torch.mean((pred_fake - torch.ones_like(pred_fake)) ** 2)


def create_netD(sample_size, lr):
    seq_len = sample_size // 2 + 1
    netD_img = Discriminator(in_ch=3, seq=False)
    netD_seq = Discriminator(in_ch=3 * seq_len, seq=True)
    optimizer_netD = optim.Adamax(list(netD_img.parameters()) + list(netD_seq.parameters()), lr=lr)
    return netD_img, netD_seq, optimizer_netD


class ConvGRUPredictor(nn.Module):
    """Stand-in for the ODE-ConvGRU generator: encodes observed frames, decodes future frames."""

    def __init__(self, ch=3, hid=8, n_future=2):
        super().__init__()
        self.n_future = n_future
        self.enc = nn.Conv2d(ch, hid, 3, padding=1)
        self.dec = nn.Conv2d(hid, ch * n_future, 3, padding=1)

    def compute_all_losses(self, batch_dict):
        obs = batch_dict["observed_data"]
        b, t, c, h, w = obs.size()
        z = torch.tanh(self.enc(obs[:, -1]))
        pred_y = torch.sigmoid(self.dec(z)).view(b, self.n_future, c, h, w)
        mse = torch.mean((pred_y - batch_dict["data_to_predict"]) ** 2)
        return {"loss": mse, "pred_y": pred_y}


def get_next_batch(b=2, t_obs=2, t_pred=2, c=3, hw=8):
    return {"observed_data": torch.rand(b, t_obs, c, hw, hw), "data_to_predict": torch.rand(b, t_pred, c, hw, hw)}


def train(opt, netG):
    optimizer_netG = optim.Adamax(netG.parameters(), lr=opt["lr"])
    netD_img, netD_seq, optimizer_netD = create_netD(opt["sample_size"], opt["lr"])
    for epoch in range(opt["epoch"]):
        for it in range(opt["n_train_batches"]):
            batch_dict = get_next_batch()
            res = netG.compute_all_losses(batch_dict)
            loss_netG = res["loss"]

            real = batch_dict["data_to_predict"]
            fake = res["pred_y"]
            input_real = batch_dict["observed_data"]

            loss_netD = opt["lamb_adv"] * netD_seq.netD_adv_loss(real, fake, input_real)
            loss_netD += opt["lamb_adv"] * netD_img.netD_adv_loss(real, fake, None)

            loss_adv_netG = opt["lamb_adv"] * netD_seq.netG_adv_loss(fake, input_real)  # also: GG111
            loss_adv_netG += opt["lamb_adv"] * netD_img.netG_adv_loss(fake, None)
            loss_netG += loss_adv_netG

            # Train D
            optimizer_netD.zero_grad()
            loss_netD.backward()
            optimizer_netD.step()  # expect: GG111

            # Train G
            optimizer_netG.zero_grad()
            loss_netG.backward()  # also: GG111
            optimizer_netG.step()
            print(f"epoch {epoch} it {it} Mse {res['loss'].item():.4f} Adv_G {loss_adv_netG.item():.4f} Adv_D {loss_netD.item():.4f}")


def main():
    torch.manual_seed(0)
    opt = {"lr": 1e-3, "epoch": 1, "n_train_batches": 2, "lamb_adv": 0.003, "sample_size": 4}
    train(opt, ConvGRUPredictor())


if __name__ == "__main__":
    main()
