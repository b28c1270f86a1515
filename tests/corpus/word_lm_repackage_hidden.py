# corpus: word-level LSTM language model with the classic repackage_hidden helper at the top of each batch
import torch
import torch.nn as nn


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class RNNModel(nn.Module):
    def __init__(self, ntoken: int, ninp: int, nhid: int) -> None:
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid

    def forward(self, inp, hidden):
        output, hidden = self.rnn(self.encoder(inp), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(1, bsz, self.nhid), weight.new_zeros(1, bsz, self.nhid))


torch.manual_seed(0)
ntokens, bptt, bsz = 30, 5, 2
corpus = torch.randint(0, ntokens, (41, bsz))
model = RNNModel(ntokens, 8, 16)
criterion = nn.CrossEntropyLoss()
lr = 1.0
hidden = model.init_hidden(bsz)

for i in range(0, corpus.size(0) - 1, bptt):
    seq_len = min(bptt, corpus.size(0) - 1 - i)
    data = corpus[i:i + seq_len]
    targets = corpus[i + 1:i + 1 + seq_len].reshape(-1)
    hidden = repackage_hidden(hidden)
    model.zero_grad()
    output, hidden = model(data, hidden)
    loss = criterion(output.view(-1, ntokens), targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    print(i // bptt, round(loss.item(), 3))
