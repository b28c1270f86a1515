# corpus: Autoformer-style Exp_Main logs train losses with .item() and, in vali(), appends loss tensors computed under torch.no_grad() from detached CPU predictions, so no graph is kept
# source: https://github.com/thuml/Autoformer/issues/130
import numpy as np
import torch
import torch.nn as nn


class SeriesDecomp(nn.Module):
    def __init__(self, kernel_size=5):
        super().__init__()
        self.avg = nn.AvgPool1d(kernel_size, stride=1, padding=kernel_size // 2, count_include_pad=False)

    def forward(self, x):
        trend = self.avg(x.transpose(1, 2)).transpose(1, 2)
        return x - trend, trend


class Model(nn.Module):
    def __init__(self, seq_len=24, pred_len=8, enc_in=2, d_model=16):
        super().__init__()
        self.pred_len = pred_len
        self.decomp = SeriesDecomp()
        self.seasonal = nn.Sequential(nn.Linear(seq_len, d_model), nn.GELU(), nn.Linear(d_model, pred_len))
        self.trend = nn.Linear(seq_len, pred_len)

    def forward(self, batch_x, batch_x_mark, dec_inp, batch_y_mark):
        seasonal, trend = self.decomp(batch_x)
        out = self.seasonal(seasonal.transpose(1, 2)) + self.trend(trend.transpose(1, 2))
        return out.transpose(1, 2)


class Exp_Main:
    def __init__(self, args):
        self.args = args
        self.model = Model(args["seq_len"], args["pred_len"])

    def _get_data(self, n_batches):
        batches = []
        for _ in range(n_batches):
            t = torch.arange(self.args["seq_len"] + self.args["pred_len"]).float()
            phase = torch.rand(4, 1, 1) * 6.28
            series = torch.sin(t.view(1, -1, 1) / 4 + phase).repeat(1, 1, 2) + 0.05 * torch.randn(4, t.numel(), 2)
            batch_x, batch_y = series[:, : self.args["seq_len"]], series[:, self.args["seq_len"]:]
            batches.append((batch_x, batch_y, torch.zeros(4, t.numel(), 1), torch.zeros(4, t.numel(), 1)))
        return batches

    def vali(self, vali_loader, criterion):
        total_loss = []
        self.model.eval()
        with torch.no_grad():
            for batch_x, batch_y, batch_x_mark, batch_y_mark in vali_loader:
                dec_inp = torch.zeros_like(batch_y)
                outputs = self.model(batch_x, batch_x_mark, dec_inp, batch_y_mark)
                pred = outputs.detach().cpu()
                true = batch_y.detach().cpu()
                loss = criterion(pred, true)
                total_loss.append(loss)
        total_loss = np.average(total_loss)
        self.model.train()
        return total_loss

    def train(self):
        train_loader, vali_loader = self._get_data(6), self._get_data(2)
        model_optim = torch.optim.Adam(self.model.parameters(), lr=self.args["learning_rate"])
        criterion = nn.MSELoss()
        for epoch in range(self.args["train_epochs"]):
            train_loss = []
            self.model.train()
            for i, (batch_x, batch_y, batch_x_mark, batch_y_mark) in enumerate(train_loader):
                model_optim.zero_grad()
                dec_inp = torch.zeros_like(batch_y)
                outputs = self.model(batch_x, batch_x_mark, dec_inp, batch_y_mark)
                loss = criterion(outputs, batch_y)
                train_loss.append(loss.item())
                loss.backward()
                model_optim.step()
            train_loss = np.average(train_loss)
            vali_loss = self.vali(vali_loader, criterion)
            print("Epoch: {0} | Train Loss: {1:.7f} Vali Loss: {2:.7f}".format(epoch + 1, train_loss, vali_loss))
        return self.model


if __name__ == "__main__":
    torch.manual_seed(0)
    exp = Exp_Main({"seq_len": 24, "pred_len": 8, "learning_rate": 1e-3, "train_epochs": 3})
    exp.train()
