# corpus: d2l-style char-level RNN language model written from scratch with adjacent (consecutive) minibatch sampling; the hidden state returned for one minibatch is fed into the next one without detach, so the second backward runs into the already-freed graph of the first minibatch
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/146
import math
import random

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


def load_fake_corpus(length=400, vocab_size=12):
    corpus_indices = [random.randrange(vocab_size) for _ in range(length)]
    return corpus_indices, vocab_size


def data_iter_consecutive(corpus_indices, batch_size, num_steps):
    corpus = torch.tensor(corpus_indices, dtype=torch.float32)
    data_len = len(corpus)
    batch_len = data_len // batch_size
    indices = corpus[0: batch_size * batch_len].view(batch_size, batch_len)
    epoch_size = (batch_len - 1) // num_steps
    for i in range(epoch_size):
        i = i * num_steps
        X = indices[:, i: i + num_steps]
        Y = indices[:, i + 1: i + num_steps + 1]
        yield X, Y


def to_onehot(X, n_class):
    return [nn.functional.one_hot(X[:, i].long(), n_class).float() for i in range(X.shape[1])]


def get_params(num_inputs, num_hiddens, num_outputs):
    def _one(shape):
        return torch.nn.Parameter(torch.randn(shape) * 0.01)
    W_xh = _one((num_inputs, num_hiddens))
    W_hh = _one((num_hiddens, num_hiddens))
    b_h = torch.nn.Parameter(torch.zeros(num_hiddens))
    W_hq = _one((num_hiddens, num_outputs))
    b_q = torch.nn.Parameter(torch.zeros(num_outputs))
    return nn.ParameterList([W_xh, W_hh, b_h, W_hq, b_q])


def init_rnn_state(batch_size, num_hiddens):
    return (torch.zeros((batch_size, num_hiddens)),)


def rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    H, = state
    outputs = []
    for X in inputs:
        H = torch.tanh(torch.matmul(X, W_xh) + torch.matmul(H, W_hh) + b_h)
        Y = torch.matmul(H, W_hq) + b_q
        outputs.append(Y)
    return outputs, (H,)


def grad_clipping(params, theta):
    norm = torch.tensor([0.0])
    for param in params:
        norm += (param.grad.data ** 2).sum()
    norm = norm.sqrt().item()
    if norm > theta:
        for param in params:
            param.grad.data *= (theta / norm)


def sgd(params, lr, batch_size):
    for param in params:
        param.data -= lr * param.grad / batch_size


def train_and_predict_rnn(corpus_indices, vocab_size, num_hiddens=16, num_epochs=2,
                          num_steps=5, lr=1e2, clipping_theta=1e-2, batch_size=4):
    params = get_params(vocab_size, num_hiddens, vocab_size)
    loss = nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        state = init_rnn_state(batch_size, num_hiddens)
        l_sum, n = 0.0, 0
        for X, Y in data_iter_consecutive(corpus_indices, batch_size, num_steps):
            inputs = to_onehot(X, vocab_size)
            outputs, state = rnn(inputs, state, params)  # expect: GG104
            outputs = torch.cat(outputs, dim=0)
            y = torch.transpose(Y, 0, 1).contiguous().view(-1)
            l = loss(outputs, y.long())
            if params[0].grad is not None:
                for param in params:
                    param.grad.data.zero_()
            l.backward()  # also: GG104
            grad_clipping(params, clipping_theta)
            sgd(params, lr, 1)
            l_sum += l.item() * y.shape[0]
            n += y.shape[0]
        print("epoch %d, perplexity %f" % (epoch + 1, math.exp(l_sum / n)))


def main():
    corpus_indices, vocab_size = load_fake_corpus()
    train_and_predict_rnn(corpus_indices, vocab_size)


if __name__ == "__main__":
    main()
