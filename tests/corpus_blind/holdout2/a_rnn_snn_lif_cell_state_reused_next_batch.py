# corpus: spiking LIF-cell classifier (norse-style LIFCell returning (spikes, state)) feeds the state returned by the previous batch into the next batch after loss.backward()
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/norse/norse/issues/130
from typing import NamedTuple, Optional

import torch
import torch.nn as nn


class SuperSpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return (x > 0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / (ctx.alpha * x.abs() + 1.0).pow(2), None


class LIFState(NamedTuple):
    v: torch.Tensor
    i: torch.Tensor


class LIFCell(nn.Module):
    def __init__(self, input_size, hidden_size, tau_syn=0.2, tau_mem=0.1, v_th=1.0):
        super().__init__()
        self.input_weights = nn.Parameter(torch.randn(hidden_size, input_size) / input_size ** 0.5)
        self.hidden_size, self.tau_syn, self.tau_mem, self.v_th = hidden_size, tau_syn, tau_mem, v_th

    def forward(self, x, state: Optional[LIFState] = None):
        if state is None:
            zeros = x.new_zeros(x.shape[0], self.hidden_size)
            state = LIFState(v=zeros, i=zeros)
        v = state.v + self.tau_mem * (state.i - state.v)
        i = state.i * (1 - self.tau_syn) + x @ self.input_weights.t()
        z = SuperSpike.apply(v - self.v_th, 100.0)
        v = (1 - z) * v
        return z, LIFState(v, i)


class SNNClassifier(nn.Module):
    def __init__(self, n_in=12, n_hidden=16, n_out=3):
        super().__init__()
        self.cell = LIFCell(n_in, n_hidden)
        self.readout = nn.Linear(n_hidden, n_out)

    def forward(self, seq, state=None):
        counts = 0
        for x_t in seq:
            z, state = self.cell(x_t, state)
            counts = counts + z
        return self.readout(counts / seq.shape[0]), state


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.state = None

    def train_batch(self, seq, labels):
        out, self.state = self.model(seq, self.state)  # expect: GG104
        loss = self.criterion(out, labels)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG104
        self.optimizer.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(SNNClassifier())
    for step in range(4):
        seq = (torch.rand(10, 8, 12) < 0.3).float() * 4.0
        labels = torch.randint(0, 3, (8,))
        print(step, trainer.train_batch(seq, labels))
