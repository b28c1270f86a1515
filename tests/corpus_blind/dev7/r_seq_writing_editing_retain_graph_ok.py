# corpus: writing-editing seq2seq with attention and teacher forcing: each batch runs several decoder passes (each attending over the previous draft), sums their losses and calls backward(retain_graph=True) on a graph rebuilt every batch (correct, the flag is merely unneeded)
# source: https://github.com/EagleW/Writing-editing-Network/issues/3
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class EncoderRNN(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hid, batch_first=True)

    def forward(self, src):
        return self.rnn(self.embedding(src))


class DecoderRNN(nn.Module):
    def __init__(self, vocab, emb, hid):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.rnn = nn.GRUCell(emb + 2 * hid, hid)
        self.attn_src = nn.Linear(hid, hid, bias=False)
        self.attn_prev = nn.Linear(hid, hid, bias=False)
        self.out = nn.Linear(3 * hid, vocab)

    @staticmethod
    def attend(query, keys, proj):
        scores = torch.bmm(proj(keys), query.unsqueeze(2)).squeeze(2)
        return torch.bmm(F.softmax(scores, dim=1).unsqueeze(1), keys).squeeze(1)

    def forward(self, tgt, hidden, enc_out, prev_draft, teacher_forcing_ratio=0.5):
        batch, length = tgt.shape
        token = tgt[:, 0]
        logits, states = [], []
        for t in range(1, length):
            ctx = self.attend(hidden, enc_out, self.attn_src)
            prev_ctx = self.attend(hidden, prev_draft, self.attn_prev) if prev_draft is not None else torch.zeros_like(ctx)
            hidden = self.rnn(torch.cat([self.embedding(token), ctx, prev_ctx], 1), hidden)
            step_logits = self.out(torch.cat([hidden, ctx, prev_ctx], 1))
            logits.append(step_logits)
            states.append(hidden)
            teacher_force = random.random() < teacher_forcing_ratio
            token = tgt[:, t] if teacher_force else step_logits.argmax(1)
        return torch.stack(logits, 1), torch.stack(states, 1)


class Seq2Seq(nn.Module):
    def __init__(self, vocab=30, emb=16, hid=24):
        super().__init__()
        self.encoder = EncoderRNN(vocab, emb, hid)
        self.decoder = DecoderRNN(vocab, emb, hid)

    def forward(self, title, abstract, num_passes):
        enc_out, enc_h = self.encoder(title)
        prev_draft = None
        drafts = []
        for _ in range(num_passes):
            logits, prev_draft = self.decoder(abstract, enc_h[0], enc_out, prev_draft)
            drafts.append(logits)
        return drafts


class Trainer:
    def __init__(self, model, num_passes=2, lr=1e-3):
        self.model = model
        self.num_passes = num_passes
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()

    def train_batch(self, title, abstract):
        drafts = self.model(title, abstract, self.num_passes)
        loss = 0
        for logits in drafts:
            loss = loss + self.criterion(logits.reshape(-1, logits.size(-1)), abstract[:, 1:].reshape(-1))
        self.optimizer.zero_grad()
        loss.backward(retain_graph=True)
        self.optimizer.step()
        return loss.item()

    def train_epoch(self, batches):
        return sum(self.train_batch(t, a) for t, a in batches) / len(batches)


def main():
    torch.manual_seed(0)
    random.seed(0)
    model = Seq2Seq()
    trainer = Trainer(model)
    batches = [(torch.randint(0, 30, (4, 6)), torch.randint(0, 30, (4, 7))) for _ in range(3)]
    before = model.decoder.out.weight.detach().clone()
    for epoch in range(2):
        print("epoch", epoch, trainer.train_epoch(batches))
    assert not torch.equal(before, model.decoder.out.weight)


if __name__ == "__main__":
    main()
