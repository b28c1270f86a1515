# corpus: fMRI LSTM classifier keeps the returned (h, c) in self.hidden and feeds it to the next batch
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/sgadgil6/cnslab_fmri/issues/4
import torch
import torch.nn as nn

BATCH = 8
N_ROI = 6
HIDDEN = 12


class fMRI_LSTM(nn.Module):
    def __init__(self, hidden_dim, input_dim):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers=1, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.dropout = nn.Dropout(p=0.2)
        self.activate = nn.Sigmoid()
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, BATCH, self.hidden_dim),
                torch.zeros(1, BATCH, self.hidden_dim))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)  # expect: GG104
        last = lstm_out[:, -1, :]
        out = self.dropout(last)
        return self.activate(self.linear(out)).squeeze(-1)


def run_training(model, loader, epochs=2):
    criterion = nn.BCELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            pred = model(x)
            loss = criterion(pred, y)
            loss.backward()  # also: GG104
            optimizer.step()
        print("epoch", epoch, "loss", loss.item())


def make_loader(n_batches=3, timepoints=10):
    data = []
    for _ in range(n_batches):
        x = torch.randn(BATCH, timepoints, N_ROI)
        y = torch.randint(0, 2, (BATCH,)).float()
        data.append((x, y))
    return data


def main():
    torch.manual_seed(0)
    model = fMRI_LSTM(HIDDEN, N_ROI)
    run_training(model, make_loader())


if __name__ == "__main__":
    main()
