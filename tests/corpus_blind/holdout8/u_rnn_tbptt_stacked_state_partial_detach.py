# corpus: stacked GRU-cell SequentialRNN trained with truncated BPTT; the trainer detaches only the first layer's carried state, so the second layer's state drags the previous chunk's freed graph into backward
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/NeuroTorch/NeuroTorch/issues/134
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class SequentialRNN(nn.Module):
    def __init__(self, n_in, n_hidden, n_out, n_layers=2):
        super().__init__()
        sizes = [n_in] + [n_hidden] * n_layers
        self.layers = nn.ModuleList(nn.GRUCell(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.readout = nn.Linear(n_hidden, n_out)
        self.n_hidden = n_hidden

    def init_states(self, batch_size):
        return [torch.zeros(batch_size, self.n_hidden) for _ in self.layers]

    def forward(self, x_t, states):
        new_states = []
        inp = x_t
        for layer, h in zip(self.layers, states):
            h = layer(inp, h)
            new_states.append(h)
            inp = h
        return self.readout(inp), new_states


class TBPTTTrainer:
    def __init__(self, model, backprop_every, lr):
        self.model = model
        self.backprop_every = backprop_every
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def fit_sequence(self, inputs, targets):
        time_steps, batch_size, _ = inputs.shape
        states = self.model.init_states(batch_size)
        losses = []
        for start in range(0, time_steps, self.backprop_every):
            # only the input layer's state is cut; the deeper layers keep their history
            states = [states[0].detach()] + states[1:]  # expect: GG104
            chunk_loss = 0.0
            for t in range(start, min(start + self.backprop_every, time_steps)):
                pred, states = self.model(inputs[t], states)
                chunk_loss = chunk_loss + F.mse_loss(pred, targets[t])
            self.optimizer.zero_grad()
            chunk_loss.backward()  # also: GG104
            self.optimizer.step()
            losses.append(chunk_loss.item())
        return losses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--time-steps", type=int, default=12)
    parser.add_argument("--backprop-every", type=int, default=4)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = SequentialRNN(3, 16, 2)
    trainer = TBPTTTrainer(model, args.backprop_every, lr=1e-3)
    inputs = torch.randn(args.time_steps, 4, 3)
    targets = torch.randn(args.time_steps, 4, 2)
    for epoch in range(2):
        print(epoch, trainer.fit_sequence(inputs, targets))


if __name__ == "__main__":
    main()
