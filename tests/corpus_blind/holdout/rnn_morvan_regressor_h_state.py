# corpus: sin->cos RNN regressor passes h_state from one window to the next; the `h_state = h_state.data` line was dropped
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
import math

import torch
import torch.nn as nn

TIME_STEP = 10
INPUT_SIZE = 1
LR = 0.02


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(input_size=INPUT_SIZE, hidden_size=16, num_layers=1, batch_first=True)
        self.out = nn.Linear(16, 1)

    def forward(self, x, h_state):
        r_out, h_state = self.rnn(x, h_state)
        outs = []
        for time_step in range(r_out.size(1)):
            outs.append(self.out(r_out[:, time_step, :]))
        return torch.stack(outs, dim=1), h_state


def window(step):
    start, end = step * math.pi, (step + 1) * math.pi
    steps = torch.linspace(start, end, TIME_STEP)
    x = torch.sin(steps).view(1, TIME_STEP, 1)
    y = torch.cos(steps).view(1, TIME_STEP, 1)
    return x, y


def main():
    torch.manual_seed(1)
    rnn = RNN()
    optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)
    loss_func = nn.MSELoss()

    h_state = None
    for step in range(4):
        x, y = window(step)
        prediction, h_state = rnn(x, h_state)  # expect: GG104
        # h_state = h_state.data        # "works on pytorch 0.4", removed while porting
        loss = loss_func(prediction, y)
        optimizer.zero_grad()
        loss.backward()  # also: GG104
        optimizer.step()
        print(step, round(loss.item(), 4))


if __name__ == "__main__":
    main()
