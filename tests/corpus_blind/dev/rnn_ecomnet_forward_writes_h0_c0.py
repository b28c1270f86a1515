# corpus: sensor classifier whose forward() writes the LSTM's returned state back into self.h0/self.c0 by tuple assignment
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://e-com-net.com/article/1600156146990088192.htm
import torch
import torch.nn as nn


class SensorNet(nn.Module):
    def __init__(self, n_channels=3, win=5, hidden=12, n_classes=4, batch=6):
        super().__init__()
        self.flat = nn.Flatten(start_dim=2)
        self.lstm = nn.LSTM(n_channels * win, hidden, batch_first=True)
        self.h0 = torch.zeros(1, batch, hidden)
        self.c0 = torch.zeros(1, batch, hidden)
        self.model1 = nn.Sequential(nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, inp):
        to_in = self.flat(inp)
        f, _ = self.lstm(to_in, (self.h0, self.c0))
        (self.h0, self.c0) = _  # expect: GG104
        return self.model1(f[:, -1])


def fit(net, batches, epochs=2, lr=1e-3):
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    history = []
    for epoch in range(epochs):
        for x, y in batches:
            out = net(x)
            loss = loss_fn(out, y)
            opt.zero_grad()
            loss.backward()  # also: GG104
            opt.step()
            history.append(loss.item())
    return history


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [(torch.randn(6, 7, 3, 5), torch.randint(0, 4, (6,))) for _ in range(3)]
    print(fit(SensorNet(), batches))
