# corpus: LSTM state carried as an (h, c) tuple through zip/enumerate over chunks; a loop calls s.detach() on each element and discards the results, so the second backward reaches the freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG112.md (shape: 2, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F


def init_state(lstm, batch_size):
    shape = (lstm.num_layers, batch_size, lstm.hidden_size)
    return torch.zeros(shape), torch.zeros(shape)


def chunk_loss(lstm, head, x, y, state):
    out, (h, c) = lstm(x, state)
    return F.mse_loss(head(out), y), (h, c)


def train_sequence(lstm, head, optimizer, xs, ys):
    state = init_state(lstm, xs[0].shape[0])
    losses = []
    for i, (x, y) in enumerate(zip(xs, ys)):
        for s in state:
            s.detach()  # expect: GG112
        loss, state = chunk_loss(lstm, head, x, y, state)
        optimizer.zero_grad()
        loss.backward()  # also: GG112
        optimizer.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 6, batch_first=True)
    head = nn.Linear(6, 1)
    optimizer = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.05)
    sequence = torch.randn(2, 12, 3)
    targets = torch.randn(2, 12, 1)
    xs = list(torch.split(sequence, 4, dim=1))
    ys = list(torch.split(targets, 4, dim=1))
    train_sequence(lstm, head, optimizer, xs, ys)


if __name__ == "__main__":
    main()
