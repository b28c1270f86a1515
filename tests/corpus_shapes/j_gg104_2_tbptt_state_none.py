# corpus: tbptt() walks enumerate(torch.split(seq)) passing state=None first and then the previous chunk's (h, c) tuple back into the LSTM without detaching
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG104.md (shape: 2, 3)
import torch
import torch.nn as nn
import torch.nn.functional as F


def chunk_loss(head, out, target):
    return F.mse_loss(head(out), target)


def tbptt(lstm, head, opt, seq, targets, chunk_len=4):
    state = None
    losses = []
    for i, (x, y) in enumerate(zip(torch.split(seq, chunk_len), torch.split(targets, chunk_len))):
        out, state = lstm(x, state)  # expect: GG104
        loss = chunk_loss(head, out, y)
        opt.zero_grad()
        loss.backward()  # also: GG104
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 6)
    head = nn.Linear(6, 1)
    opt = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=1e-3)
    seq = torch.randn(12, 2, 3)
    targets = torch.randn(12, 2, 1)
    print(tbptt(lstm, head, opt, seq, targets))


if __name__ == "__main__":
    main()
