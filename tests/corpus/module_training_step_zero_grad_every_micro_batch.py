# corpus: a Lightning-style module's training_step clears the gradients before every micro-batch's backward but steps only every accumulate_grad_batches, so each step applies the last micro-batch's gradient alone
import torch
import torch.nn as nn
import torch.nn.functional as F


class Module:
    def __init__(self, accumulate_grad_batches: int = 4) -> None:
        self.net = nn.Linear(6, 1)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.accumulate_grad_batches = accumulate_grad_batches

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self.net(x), y) / self.accumulate_grad_batches
        self.opt.zero_grad()  # expect: GG201
        loss.backward()
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            self.opt.step()
        return loss.item()


def fit(module, batches):
    for batch_idx, batch in enumerate(batches):
        module.training_step(batch, batch_idx)


torch.manual_seed(0)
fit(Module(), [(torch.randn(4, 6), torch.randn(4, 1)) for _ in range(8)])
