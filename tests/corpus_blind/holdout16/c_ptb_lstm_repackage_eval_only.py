# corpus: Word-level LSTM language model trained with truncated BPTT through a (simulated) distributed SGD wrapper; run_epoch only repackages the hidden state when evaluating, so in training the carried hidden state still points into the previous batch's freed graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/D-J-Harris/Gradient-Compression/blob/main/main.py
import numpy as np
import torch
import torch.nn as nn


class Args:
    num_steps = 5
    batch_size_train = 4
    hidden_size = 16
    num_layers = 2
    num_workers = 1
    log_interval = 2
    inital_lr = 20.0


args = Args()


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(args.num_steps, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].reshape(-1)


class LSTM(nn.Module):
    def __init__(self, embedding_dim, num_steps, batch_size, num_workers, vocab_size, num_layers, dropout_prob):
        super().__init__()
        self.num_steps, self.batch_size, self.num_workers = num_steps, batch_size, num_workers
        self.num_layers, self.hidden_size = num_layers, embedding_dim
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, embedding_dim, num_layers, dropout=dropout_prob)
        self.dropout = nn.Dropout(dropout_prob)
        self.fc = nn.Linear(embedding_dim, vocab_size)

    def init_hidden(self):
        w = next(self.parameters())
        return (w.new_zeros(self.num_layers, self.batch_size, self.hidden_size),
                w.new_zeros(self.num_layers, self.batch_size, self.hidden_size))

    def forward(self, inputs, hidden):
        emb = self.dropout(self.embedding(inputs))
        out, hidden = self.lstm(emb, hidden)
        return self.fc(self.dropout(out)), hidden


class DistributedSGD:
    """Wraps an optimizer; each simulated worker's (compressed) gradient is stored, the master steps later."""

    def __init__(self, optimizer, named_parameters):
        self.optimizer = optimizer
        self.params = [p for _, p in named_parameters]
        self.buffer = [torch.zeros_like(p) for p in self.params]
        self.param_groups = optimizer.param_groups

    def compress_step(self):
        for buf, p in zip(self.buffer, self.params):
            if p.grad is not None:
                buf.add_(p.grad)

    def step(self):
        for buf, p in zip(self.buffer, self.params):
            p.grad = buf.clone()
        self.optimizer.step()
        for buf in self.buffer:
            buf.zero_()


def run_epoch(model, data, criterion, optimizer, vocab_size, is_train=False):
    model.train() if is_train else model.eval()
    hidden = model.init_hidden()
    costs, iters = 0.0, 0
    for batch, i in enumerate(range(0, data.size(0) - 1, args.num_steps)):
        inputs, targets = get_batch(data, i)
        if not is_train:
            hidden = repackage_hidden(hidden)
        outputs, hidden = model(inputs, hidden)  # expect: GG104
        loss = criterion(outputs.view(-1, vocab_size), targets)
        costs += loss.item() * model.num_steps
        iters += model.num_steps
        if is_train:
            model.zero_grad()
            loss.backward()  # also: GG104
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optimizer.compress_step()
            if (batch + 1) % model.num_workers == 0:
                optimizer.step()
        if batch % args.log_interval == 0 and batch > 0:
            print("epoch progress {:.3f}%  -->  ppl {:8.2f}".format(i * 100.0 / data.size(0), np.exp(costs / iters)))
    return np.exp(costs / iters)


def main():
    torch.manual_seed(42)
    np.random.seed(42)
    vocab_size = 30
    corpus_train = torch.randint(0, vocab_size, (200,))
    corpus_valid = torch.randint(0, vocab_size, (80,))
    train_data = batchify(corpus_train, args.batch_size_train)
    val_data = batchify(corpus_valid, args.batch_size_train)
    model = LSTM(embedding_dim=args.hidden_size, num_steps=args.num_steps, batch_size=args.batch_size_train,
                 num_workers=args.num_workers, vocab_size=vocab_size, num_layers=args.num_layers, dropout_prob=0.3)
    criterion = nn.CrossEntropyLoss()
    optimizer = DistributedSGD(torch.optim.SGD(model.parameters(), lr=args.inital_lr), model.named_parameters())
    for epoch in range(1, 3):
        train_p = run_epoch(model, train_data, criterion, optimizer, vocab_size, is_train=True)
        print("Train perplexity at epoch {}: {:8.2f}".format(epoch, train_p))
        with torch.no_grad():
            val_p = run_epoch(model, val_data, criterion, optimizer, vocab_size)
        print("Validation perplexity at epoch {}: {:8.2f}".format(epoch, val_p))


if __name__ == "__main__":
    main()
