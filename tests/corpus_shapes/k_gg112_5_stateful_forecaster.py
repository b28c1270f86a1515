# corpus: streaming forecaster keeps self.hidden across step() calls; the truncation line calls self.hidden.detach() and discards the result, so the second backward reaches the freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG112.md (shape: 5)
import torch
import torch.nn as nn
import torch.nn.functional as F


class StreamingForecaster:
    def __init__(self, rnn, head, optimizer, batch_size=2):
        self.rnn = rnn
        self.head = head
        self.optimizer = optimizer
        self.hidden = torch.zeros(1, batch_size, rnn.hidden_size)

    def step(self, chunk, target):
        self.hidden.detach()  # expect: GG112
        out, self.hidden = self.rnn(chunk, self.hidden)
        loss = F.mse_loss(self.head(out[:, -1]), target)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG112
        self.optimizer.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    rnn = nn.GRU(4, 8, batch_first=True)
    head = nn.Linear(8, 1)
    optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)
    forecaster = StreamingForecaster(rnn, head, optimizer)
    for t in range(4):
        forecaster.step(torch.randn(2, 5, 4), torch.randn(2, 1))


if __name__ == "__main__":
    main()
