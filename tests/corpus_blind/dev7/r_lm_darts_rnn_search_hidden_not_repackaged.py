# corpus: DARTS-style RNN language-model search port to torch 0.4: repackage_hidden only unwraps the removed Variable type, so the hidden state carried between BPTT chunks keeps the previous chunk's graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/quark0/darts/issues/56
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

Variable = type("Variable", (), {})  # torch 0.3 wrapper type; no tensor is an instance any more


def repackage_hidden(h):
    if type(h) == Variable:
        return h.data
    if isinstance(h, (list, tuple)):
        return type(h)(repackage_hidden(v) for v in h)
    return h


class DARTSCell(nn.Module):
    def __init__(self, ninp, nhid, steps=4):
        super().__init__()
        self.nhid = nhid
        self._W0 = nn.Parameter(torch.empty(ninp + nhid, 2 * nhid).uniform_(-0.04, 0.04))
        self._Ws = nn.ParameterList(
            [nn.Parameter(torch.empty(nhid, 2 * nhid).uniform_(-0.04, 0.04)) for _ in range(steps)]
        )
        self.alphas = nn.Parameter(1e-3 * torch.randn(steps, 3))

    def cell(self, x, h_prev):
        c0, h0 = torch.split(torch.cat([x, h_prev], dim=-1) @ self._W0, self.nhid, dim=-1)
        s = h_prev + torch.sigmoid(c0) * (torch.tanh(h0) - h_prev)
        states = [s]
        weights = F.softmax(self.alphas, dim=-1)
        for i, W in enumerate(self._Ws):
            c, h = torch.split(states[-1] @ W, self.nhid, dim=-1)
            c = torch.sigmoid(c)
            mixed = weights[i, 0] * torch.tanh(h) + weights[i, 1] * torch.relu(h) + weights[i, 2] * torch.sigmoid(h)
            states.append(states[-1] + c * (mixed - states[-1]))
        return torch.stack(states[1:], 0).mean(0)

    def forward(self, inputs, hidden):
        hiddens = []
        h = hidden[0][0]
        for t in range(inputs.size(0)):
            h = self.cell(inputs[t], h)
            hiddens.append(h)
        return torch.stack(hiddens), hiddens[-1].unsqueeze(0)


class RNNModelSearch(nn.Module):
    def __init__(self, ntoken, ninp, nhid):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = DARTSCell(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid

    def init_hidden(self, bsz):
        return [torch.zeros(1, bsz, self.nhid)]

    def forward(self, data, hidden):
        emb = self.encoder(data)
        output, new_h = self.rnn(emb, hidden)
        log_prob = F.log_softmax(self.decoder(output), dim=-1)
        return log_prob, [new_h]


class Architect:
    def __init__(self, model, args):
        self.model = model
        self.optimizer = torch.optim.Adam([model.rnn.alphas], lr=args.arch_lr)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def train(model, train_data, args):
    weights = [p for n, p in model.named_parameters() if n != "rnn.alphas"]
    optimizer = torch.optim.SGD(weights, lr=args.lr)
    hidden = model.init_hidden(args.batch_size)
    i = 0
    while i < train_data.size(0) - 1 - 1:
        cur_data, cur_targets = get_batch(train_data, i, args.bptt)
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        log_prob, hidden = model(cur_data, hidden)  # expect: GG104
        raw_loss = F.nll_loss(log_prob.view(-1, log_prob.size(2)), cur_targets)
        raw_loss.backward()  # also: GG104
        nn.utils.clip_grad_norm_(weights, args.clip)
        optimizer.step()
        i += args.bptt


def main():
    parser = argparse.ArgumentParser("darts-rnn-search")
    parser.add_argument("--emsize", type=int, default=16)
    parser.add_argument("--nhid", type=int, default=16)
    parser.add_argument("--bptt", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=20.0)
    parser.add_argument("--arch_lr", type=float, default=3e-3)
    parser.add_argument("--clip", type=float, default=0.25)
    args = parser.parse_args([])
    torch.manual_seed(0)
    ntokens = 50
    train_data = torch.randint(0, ntokens, (21, args.batch_size))
    model = RNNModelSearch(ntokens, args.emsize, args.nhid)
    Architect(model, args)
    train(model, train_data, args)


if __name__ == "__main__":
    main()
