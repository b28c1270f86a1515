# corpus: LSTM language-model trainer; the (h, c) state returned by each BPTT batch is fed to the next batch without repackage_hidden(), so the second batch's backward walks into the first batch's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/LiyuanLucasLiu/LD-Net/issues/6
import torch
import torch.nn as nn


class LM(nn.Module):
    def __init__(self, vocab_size, emb_dim, hid_dim, num_layers=2, dropout=0.1):
        super().__init__()
        self.word_embed = nn.Embedding(vocab_size, emb_dim)
        self.rnn = nn.LSTM(emb_dim, hid_dim, num_layers, dropout=dropout)
        self.drop = nn.Dropout(dropout)
        self.soft_max = nn.Linear(hid_dim, vocab_size)
        self.num_layers = num_layers
        self.hid_dim = hid_dim

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.num_layers, bsz, self.hid_dim),
                weight.new_zeros(self.num_layers, bsz, self.hid_dim))

    def forward(self, w_in, hidden):
        emb = self.drop(self.word_embed(w_in))
        out, hidden = self.rnn(emb, hidden)
        out = self.drop(out)
        return self.soft_max(out.view(-1, out.size(-1))), hidden


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class LMTrainer:
    def __init__(self, model, lr=1.0, clip=5.0, bptt=5):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.clip = clip
        self.bptt = bptt

    def get_batch(self, source, i):
        seq_len = min(self.bptt, source.size(0) - 1 - i)
        return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)

    def train_epoch(self, train_data, bsz):
        self.model.train()
        total_loss = 0.0
        hidden = self.model.init_hidden(bsz)
        n_batches = 0
        for i in range(0, train_data.size(0) - 1, self.bptt):
            w_in, w_tar = self.get_batch(train_data, i)
            self.model.zero_grad()
            output, hidden = self.model(w_in, hidden)  # expect: GG104
            loss = self.criterion(output, w_tar)
            loss.backward()  # also: GG104
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            self.optimizer.step()
            total_loss += loss.item()
            n_batches += 1
        return total_loss / n_batches


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[:nbatch * bsz].view(bsz, -1).t().contiguous()


def main():
    torch.manual_seed(0)
    vocab_size, bsz = 50, 4
    corpus = torch.randint(0, vocab_size, (120,))
    train_data = batchify(corpus, bsz)
    trainer = LMTrainer(LM(vocab_size, emb_dim=16, hid_dim=24))
    for epoch in range(2):
        print(f"epoch {epoch} ppl-loss {trainer.train_epoch(train_data, bsz):.3f}")


if __name__ == "__main__":
    main()
