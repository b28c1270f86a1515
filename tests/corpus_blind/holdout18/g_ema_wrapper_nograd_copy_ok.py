# corpus: EMA wrapper in the style of ema-pytorch: the online net is mutated with copy_ inside torch.no_grad() as in the README, then trained normally, and the EMA copy (frozen, requires_grad False) is updated in place under no_grad; nothing touches a recorded graph.
# source: https://github.com/lucidrains/ema-pytorch/issues/25
import copy

import torch
import torch.nn as nn


class EMA(nn.Module):
    def __init__(self, model, beta=0.99, update_after_step=2, update_every=1):
        super().__init__()
        self.beta = beta
        self.online_model = [model]
        self.ema_model = copy.deepcopy(model)
        self.ema_model.requires_grad_(False)
        self.update_after_step = update_after_step
        self.update_every = update_every
        self.register_buffer("initted", torch.tensor(False))
        self.register_buffer("step", torch.tensor(0))

    @property
    def model(self):
        return self.online_model[0]

    def copy_params_from_model_to_ema(self):
        for ma_params, current_params in zip(self.ema_model.parameters(), self.model.parameters()):
            ma_params.data.copy_(current_params.data)

    @torch.no_grad()
    def update_moving_average(self, ma_model, current_model):
        for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
            ma_params.lerp_(current_params, 1.0 - self.beta)

    def update(self):
        step = self.step.item()
        self.step += 1
        if (step % self.update_every) != 0:
            return
        if step <= self.update_after_step:
            self.copy_params_from_model_to_ema()
            return
        if not self.initted.item():
            self.copy_params_from_model_to_ema()
            self.initted.data.copy_(torch.tensor(True))
        self.update_moving_average(self.ema_model, self.model)

    def __call__(self, *args, **kwargs):
        return self.ema_model(*args, **kwargs)


def main():
    torch.manual_seed(0)
    net = nn.Linear(16, 16)
    ema = EMA(net, beta=0.9, update_after_step=2, update_every=1)

    with torch.no_grad():
        net.weight.copy_(torch.randn_like(net.weight))
        net.bias.copy_(torch.randn_like(net.bias))
    ema.update()

    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    target = torch.randn(32, 16)
    data = torch.randn(32, 16)
    for step in range(6):
        optimizer.zero_grad()
        loss = ((net(data) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        ema.update()
        with torch.no_grad():
            ema_loss = ((ema(data) - target) ** 2).mean()
        print(step, round(loss.item(), 4), round(ema_loss.item(), 4))


if __name__ == "__main__":
    main()
