# corpus: a stateful GRU trainer creates its hidden state only on the first batch (`if i == 0`) and carries it, never detached, into the next batches
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)


class Forecaster(nn.Module):
    def __init__(self, n_in=3, hidden=8):
        super().__init__()
        self.gru = nn.GRU(n_in, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x, h):
        y, h = self.gru(x, h)
        return self.out(y[:, -1]), h


def train(model, batches, lr=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for i, (x, target) in enumerate(batches):
        if i == 0:
            h = torch.zeros(1, x.shape[0], 8)
        pred, h = model(x, h)  # expect: GG104
        loss = nn.functional.mse_loss(pred, target)
        opt.zero_grad()
        loss.backward()
        opt.step()


train(Forecaster(), [(torch.randn(4, 5, 3), torch.randn(4, 1)) for _ in range(3)])
