# corpus: RNN time-series predictor (anomaly detection) trained with free-running, teacher-forcing and professor-forcing losses; the carried hidden state is repackaged (detached) every BPTT batch, the three losses are summed and backpropagated once, and the running loss uses .item() (correct)
# source: https://github.com/chickenbestlover/RNN-Time-series-Anomaly-Detection/issues/42
import argparse

import torch
import torch.nn as nn


class RNNPredictor(nn.Module):
    def __init__(self, enc_inp_size, rnn_inp_size, rnn_hid_size, dec_out_size, nlayers, dropout=0.2):
        super().__init__()
        self.enc_input_size = enc_inp_size
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Linear(enc_inp_size, rnn_inp_size)
        self.rnn = nn.LSTM(rnn_inp_size, rnn_hid_size, nlayers, dropout=dropout)
        self.decoder = nn.Linear(rnn_hid_size, dec_out_size)
        self.rnn_hid_size = rnn_hid_size
        self.nlayers = nlayers

    def forward(self, input, hidden, return_hiddens=False):
        emb = self.drop(self.encoder(input.contiguous().view(-1, self.enc_input_size)))
        emb = emb.view(-1, input.size(1), self.rnn_hid_size)
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output.view(output.size(0) * output.size(1), output.size(2)))
        decoded = decoded.view(output.size(0), output.size(1), decoded.size(1))
        if return_hiddens:
            return decoded, hidden, output
        return decoded, hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.rnn_hid_size),
                weight.new_zeros(self.nlayers, bsz, self.rnn_hid_size))

    def repackage_hidden(self, h):
        """Wraps hidden states in new Variables, to detach them from their history."""
        if type(h) == tuple:
            return tuple(self.repackage_hidden(v) for v in h)
        return h.detach()


def get_batch(args, source, i):
    seq_len = min(args.bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len]
    return data, target


def train(args, model, train_dataset, optimizer, criterion, epoch):
    model.train()
    total_loss = 0
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_dataset.size(0) - 1, args.bptt)):
        inputSeq, targetSeq = get_batch(args, train_dataset, i)
        hidden = model.repackage_hidden(hidden)
        hidden_ = model.repackage_hidden(hidden)
        optimizer.zero_grad()

        '''Loss1: Free running loss'''
        outVal = inputSeq[0].unsqueeze(0)
        outVals = []
        hids1 = []
        for _ in range(inputSeq.size(0)):
            outVal, hidden_, hid = model.forward(outVal, hidden_, return_hiddens=True)
            outVals.append(outVal)
            hids1.append(hid)
        outSeq1 = torch.cat(outVals, dim=0)
        hids1 = torch.cat(hids1, dim=0)
        loss1 = criterion(outSeq1.view(args.batch_size, -1), targetSeq.view(args.batch_size, -1))

        '''Loss2: Teacher forcing loss'''
        outSeq2, hidden, hids2 = model.forward(inputSeq, hidden, return_hiddens=True)
        loss2 = criterion(outSeq2.view(args.batch_size, -1), targetSeq.view(args.batch_size, -1))

        '''Loss3: Simplified Professor forcing loss'''
        loss3 = criterion(hids1.view(args.batch_size, -1), hids2.view(args.batch_size, -1).detach())

        '''Total loss = Loss1+Loss2+Loss3'''
        loss = loss1 + loss2 + loss3
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        total_loss += loss.item()
    return total_loss / (batch + 1)


def main():
    torch.manual_seed(0)
    args = argparse.Namespace(bptt=6, batch_size=4, clip=0.25, lr=2e-3)
    feature_dim = 2
    series = torch.sin(torch.linspace(0, 12, 40 * args.batch_size)).view(-1, 1).repeat(1, feature_dim)
    train_dataset = (series + 0.05 * torch.randn_like(series)).view(-1, args.batch_size, feature_dim)
    model = RNNPredictor(feature_dim, 16, 16, feature_dim, nlayers=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.MSELoss()
    for epoch in range(2):
        print(f"epoch {epoch}: loss {train(args, model, train_dataset, optimizer, criterion, epoch):.4f}")


if __name__ == "__main__":
    main()
