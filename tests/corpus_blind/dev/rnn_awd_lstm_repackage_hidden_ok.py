# corpus: AWD-LSTM style LM with a ModuleList of single-layer LSTMs and per-layer (h, c) list, repackaged recursively before every variable-length BPTT window (correct)
# source: https://github.com/salesforce/awd-lstm-lm/issues/91
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h) if isinstance(h, tuple) else [repackage_hidden(v) for v in h]


class RNNModel(nn.Module):
    def __init__(self, ntoken=40, ninp=8, nhid=12, nlayers=3, dropouth=0.1):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnns = nn.ModuleList(
            nn.LSTM(ninp if l == 0 else nhid, nhid if l != nlayers - 1 else ninp, 1) for l in range(nlayers))
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight  # tied weights
        self.dropouth = dropouth
        self.nlayers, self.nhid, self.ninp = nlayers, nhid, ninp

    def forward(self, input, hidden):
        raw_output = self.encoder(input)
        new_hidden = []
        for l, rnn in enumerate(self.rnns):
            raw_output, new_h = rnn(raw_output, hidden[l])
            new_hidden.append(new_h)
            if l != self.nlayers - 1:
                raw_output = F.dropout(raw_output, self.dropouth, self.training)
        return self.decoder(raw_output), new_hidden

    def init_hidden(self, bsz):
        return [(torch.zeros(1, bsz, self.nhid if l != self.nlayers - 1 else self.ninp),
                 torch.zeros(1, bsz, self.nhid if l != self.nlayers - 1 else self.ninp))
                for l in range(self.nlayers)]


def get_batch(source, i, seq_len):
    seq_len = min(seq_len, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


def train_epoch(model, optimizer, train_data, batch_size, bptt=5):
    model.train()
    total_loss = 0.0
    hidden = model.init_hidden(batch_size)
    batch, i = 0, 0
    seen = []
    while i < train_data.size(0) - 1 - 1:
        bptt_ = bptt if np.random.random() < 0.95 else bptt / 2.0
        seq_len = max(2, int(np.random.normal(bptt_, 1)))
        data, targets = get_batch(train_data, i, seq_len)
        hidden = repackage_hidden(hidden)
        seen.append(hidden)
        optimizer.zero_grad()
        output, hidden = model(data, hidden)
        loss = F.cross_entropy(output.view(-1, output.size(-1)), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
        total_loss += loss.item()
        batch += 1
        i += seq_len
    return total_loss / batch, seen


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    model = RNNModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    train_data = torch.randint(0, 40, (30, 3))
    avg, seen = train_epoch(model, optimizer, train_data, batch_size=3)
    assert isinstance(avg, float)
    assert all(p.grad is not None for p in model.parameters())
    assert all(t.grad_fn is None for hidden in seen for hc in hidden for t in hc)
