# corpus: d2l train_epoch_ch8 char-level LSTM with sequential partitioning; the state is "detached" with s.detach() whose result is thrown away, so the carried state keeps the previous minibatch's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/d2l-ai/d2l-en/pull/1410
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    """The RNN model (d2l.RNNModel)."""

    def __init__(self, rnn_layer, vocab_size):
        super().__init__()
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        self.linear = nn.Linear(self.num_hiddens, self.vocab_size)

    def forward(self, inputs, state):
        X = F.one_hot(inputs.T.long(), self.vocab_size).to(torch.float32)
        Y, state = self.rnn(X, state)
        output = self.linear(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, device, batch_size=1):
        shape = (self.rnn.num_layers, batch_size, self.num_hiddens)
        if not isinstance(self.rnn, nn.LSTM):
            return torch.zeros(shape, device=device)
        return (torch.zeros(shape, device=device), torch.zeros(shape, device=device))


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def grad_clipping(net, theta):
    params = [p for p in net.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


def seq_data_iter_sequential(corpus, batch_size, num_steps):
    num_tokens = ((len(corpus) - 1) // batch_size) * batch_size
    Xs = torch.tensor(corpus[:num_tokens]).reshape(batch_size, -1)
    Ys = torch.tensor(corpus[1:1 + num_tokens]).reshape(batch_size, -1)
    num_batches = Xs.shape[1] // num_steps
    for i in range(0, num_steps * num_batches, num_steps):
        yield Xs[:, i:i + num_steps], Ys[:, i:i + num_steps]


def train_epoch_ch8(net, train_iter, loss, updater, device, use_random_iter):
    state = None
    metric = Accumulator(2)
    for X, Y in train_iter:
        if state is None or use_random_iter:
            state = net.begin_state(batch_size=X.shape[0], device=device)
        else:
            if isinstance(net, nn.Module) and not isinstance(state, tuple):
                state.detach()  # expect: GG112
            else:
                for s in state:
                    s.detach()  # expect: GG112
        y = Y.T.reshape(-1)
        X, y = X.to(device), y.to(device)
        y_hat, state = net(X, state)
        l = loss(y_hat, y.long()).mean()
        updater.zero_grad()
        l.backward()  # also: GG112
        grad_clipping(net, 1)
        updater.step()
        metric.add(l.item() * y.numel(), y.numel())
    return math.exp(metric[0] / metric[1])


def main():
    torch.manual_seed(0)
    vocab_size, num_hiddens, batch_size, num_steps = 28, 32, 4, 6
    corpus = torch.randint(0, vocab_size, (200,)).tolist()
    net = RNNModel(nn.LSTM(vocab_size, num_hiddens), vocab_size)
    loss = nn.CrossEntropyLoss()
    updater = torch.optim.SGD(net.parameters(), lr=1.0)
    for epoch in range(2):
        train_iter = seq_data_iter_sequential(corpus, batch_size, num_steps)
        ppl = train_epoch_ch8(net, train_iter, loss, updater, torch.device("cpu"), use_random_iter=False)
        print(f"epoch {epoch}: perplexity {ppl:.2f}")


if __name__ == "__main__":
    main()
