# corpus: ConvLSTM next-frame predictor (main_conv_lstm shape, ported to PyTorch): the trainer keeps the last hidden/cell state of the previous batch and feeds it as the initial state of the next batch without resetting or detaching it, so the second batch's backward reaches the freed graph of the first
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/loliverhennigh/Convolutional-LSTM-in-Tensorflow/issues/3
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvLSTMCell(nn.Module):
    def __init__(self, in_ch, hidden_ch, k=3):
        super().__init__()
        self.hidden_ch = hidden_ch
        self.gates = nn.Conv2d(in_ch + hidden_ch, 4 * hidden_ch, k, padding=k // 2)

    def forward(self, x, state):
        h, c = state
        i, f, o, g = torch.chunk(self.gates(torch.cat([x, h], dim=1)), 4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c

    def init_state(self, b, hgt, wid):
        z = torch.zeros(b, self.hidden_ch, hgt, wid)
        return z, z.clone()


class FramePredictor(nn.Module):
    def __init__(self, ch=1, hidden=8):
        super().__init__()
        self.encoder = nn.Conv2d(ch, hidden, 3, padding=1)
        self.cell = ConvLSTMCell(hidden, hidden)
        self.decoder = nn.Conv2d(hidden, ch, 3, padding=1)

    def forward(self, frames, state):
        preds = []
        for t in range(frames.shape[1]):
            state = self.cell(F.elu(self.encoder(frames[:, t])), state)
            preds.append(torch.sigmoid(self.decoder(state[0])))
        return torch.stack(preds, dim=1), state


@dataclass
class TrainConfig:
    seq_length: int = 5
    batch_size: int = 2
    lr: float = 1e-3
    max_step: int = 4


class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        self.hidden = None

    def generate_batch(self):
        base = torch.rand(self.cfg.batch_size, 1, 1, 8, 8)
        shifts = [torch.roll(base, shifts=s, dims=-1) for s in range(self.cfg.seq_length + 1)]
        return torch.cat(shifts, dim=1)

    def step(self, batch):
        if self.hidden is None:
            self.hidden = self.model.cell.init_state(batch.shape[0], 8, 8)
        inputs, targets = batch[:, :-1], batch[:, 1:]
        preds, hidden = self.model(inputs, self.hidden)
        self.hidden = hidden  # expect: GG104
        loss = F.mse_loss(preds, targets)
        self.opt.zero_grad()
        loss.backward()  # also: GG104
        self.opt.step()
        return loss.item()

    def train(self):
        for step in range(self.cfg.max_step):
            print(f"step {step} loss {self.step(self.generate_batch()):.5f}")


def main():
    torch.manual_seed(0)
    Trainer(FramePredictor(), TrainConfig()).train()


if __name__ == "__main__":
    main()
