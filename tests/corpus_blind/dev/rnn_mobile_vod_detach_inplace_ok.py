# corpus: bottleneck-LSTM video detector keeps hidden/cell state on the cell module and calls detach_() on both after every sequence's update (correct)
# source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/issues/6
import torch
import torch.nn as nn
import torch.nn.functional as F


class BottleneckLSTMCell(nn.Module):
    def __init__(self, input_channels, hidden_channels):
        super().__init__()
        self.hidden_channels = hidden_channels
        self.W = nn.Conv2d(input_channels, input_channels, 3, padding=1, groups=input_channels)
        self.Wy = nn.Conv2d(input_channels + hidden_channels, hidden_channels, 1)
        self.Wi = nn.Conv2d(hidden_channels, 4 * hidden_channels, 3, padding=1)
        self.hidden_state = None
        self.cell_state = None

    def init_hidden(self, batch, shape):
        h, w = shape
        self.hidden_state = torch.zeros(batch, self.hidden_channels, h, w)
        self.cell_state = torch.zeros(batch, self.hidden_channels, h, w)

    def forward(self, x):
        if self.hidden_state is None:
            self.init_hidden(x.size(0), x.shape[-2:])
        x = self.W(x)
        y = F.relu6(self.Wy(torch.cat((x, self.hidden_state), 1)))
        i, f, o, g = torch.chunk(self.Wi(y), 4, dim=1)
        c = torch.sigmoid(f) * self.cell_state + torch.sigmoid(i) * F.relu6(g)
        h = torch.sigmoid(o) * F.relu6(c)
        self.hidden_state, self.cell_state = h, c
        return h

    def detach_hidden(self):
        self.hidden_state.detach_()
        self.cell_state.detach_()


class MobileVOD(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bottleneck_lstm1 = BottleneckLSTMCell(8, 8)
        self.cls = nn.Conv2d(8, 3, 1)

    def forward(self, frame):
        return self.cls(self.bottleneck_lstm1(F.relu(self.backbone(frame))))

    def detach_all(self):
        self.bottleneck_lstm1.detach_hidden()


def train_sequences(net, sequences, optimizer):
    for seq, labels in sequences:
        optimizer.zero_grad()
        loss = 0
        for frame, label in zip(seq, labels):
            loss = loss + F.cross_entropy(net(frame), label)
        loss.backward()
        optimizer.step()
        net.detach_all()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = MobileVOD()
    optimizer = torch.optim.RMSprop(net.parameters(), lr=1e-3)
    sequences = [(torch.rand(4, 2, 3, 8, 8), torch.randint(0, 3, (4, 2, 4, 4))) for _ in range(3)]
    train_sequences(net, sequences, optimizer)
    assert all(p.grad is not None for p in net.parameters())
    cell = net.bottleneck_lstm1
    assert cell.hidden_state.grad_fn is None and cell.cell_state.grad_fn is None
