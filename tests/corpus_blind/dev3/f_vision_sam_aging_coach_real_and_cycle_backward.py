# corpus: SAM age-transformation Coach: each step backpropagates the real-pass loss, then runs a fresh cycle forward on a detached clone of the output and backpropagates that loss before one optimizer.step; two backward calls, two separate graphs
# source: https://github.com/yuval-alaluf/SAM/issues/42
import random
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyPSP(nn.Module):
    """Encoder/decoder taking RGB + target-age channel, returning (image, latent)."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
        self.decoder = nn.Conv2d(8, 3, 3, padding=1)

    def forward(self, x):
        latent = self.encoder(x)
        return torch.tanh(self.decoder(latent)), latent


class AgingLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.age_net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 1))
        self.age_net.requires_grad_(False)

    def extract_ages(self, x):
        return torch.sigmoid(self.age_net(x)).squeeze(1) * 100.

    def forward(self, y_hat, target_ages):
        return F.mse_loss(self.extract_ages(y_hat) / 100., target_ages)


class Coach:
    def __init__(self, max_steps=4):
        self.net = TinyPSP()
        self.aging_loss = AgingLoss()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        self.max_steps = max_steps
        self.global_step = 0
        self.train_dataloader = [(torch.rand(2, 3, 8, 8) * 2 - 1, torch.rand(2, 3, 8, 8) * 2 - 1) for _ in range(2)]

    def __set_target_to_source(self, x, input_ages):
        return [torch.cat((img, age * torch.ones((1, img.shape[1], img.shape[2])))) for img, age in zip(x, input_ages)]

    def perform_forward_pass(self, x):
        return self.net(x)

    def calc_loss(self, x, y, y_hat, latent, target_ages, data_type="real"):
        loss_dict = {}
        loss_l2 = F.mse_loss(y_hat, y)
        loss_aging = self.aging_loss(y_hat, target_ages)
        loss_reg = latent.pow(2).mean()
        loss = loss_l2 + 0.5 * loss_aging + 0.01 * loss_reg
        loss_dict[f"loss_l2_{data_type}"] = loss_l2.item()
        loss_dict[f"loss_aging_{data_type}"] = loss_aging.item()
        loss_dict[f"loss_{data_type}"] = loss.item()
        return loss, loss_dict, [{"step": self.global_step}]

    def train(self):
        self.net.train()
        while self.global_step < self.max_steps:
            for batch_idx, (x, y) in enumerate(self.train_dataloader):
                self.optimizer.zero_grad()
                input_ages = self.aging_loss.extract_ages(x) / 100.
                no_aging = random.random() <= (1. / 3)
                target = input_ages if no_aging else torch.rand_like(input_ages)
                x_input = torch.stack(self.__set_target_to_source(x=x, input_ages=target))
                target_ages = x_input[:, -1, 0, 0]
                # forward/backward on real images
                y_hat, latent = self.perform_forward_pass(x_input)
                loss, loss_dict, id_logs = self.calc_loss(x, y, y_hat, latent, target_ages, data_type="real")
                loss.backward()
                # cycle: set the target ages back to the original input ages
                y_hat_clone = y_hat.clone().detach().requires_grad_(True)
                input_ages_clone = input_ages.clone().detach().requires_grad_(True)
                y_hat_inverse = torch.stack(self.__set_target_to_source(x=y_hat_clone, input_ages=input_ages_clone))
                reverse_target_ages = y_hat_inverse[:, -1, 0, 0]
                y_recovered, latent_cycle = self.perform_forward_pass(y_hat_inverse)
                loss, cycle_loss_dict, cycle_id_logs = self.calc_loss(x, x, y_recovered, latent_cycle,
                                                                      reverse_target_ages, data_type="cycle")
                loss.backward()
                self.optimizer.step()
                loss_dict.update(cycle_loss_dict)
                loss_dict["loss"] = loss_dict["loss_real"] + loss_dict["loss_cycle"]
                print(self.global_step, {k: round(v, 4) for k, v in loss_dict.items() if k.startswith("loss")})
                self.global_step += 1
                if self.global_step == self.max_steps:
                    break


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    random.seed(0)
    Coach().train()
