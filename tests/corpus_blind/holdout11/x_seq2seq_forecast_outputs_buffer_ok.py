# corpus: GRU seq2seq forecaster whose decoder writes each step into a preallocated outputs tensor and patches a cloned input with its own (sampled) prediction; nothing a backward needs is overwritten, so it trains
# source: https://github.com/maxbrenner-ai/seq2seq-time-series-forecasting-fully-recurrent/issues/2
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, n_features, hidden=8):
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True)

    def forward(self, x):
        return self.gru(x)


class Decoder(nn.Module):
    def __init__(self, n_features, target_indices, hidden=8):
        super().__init__()
        self.target_indices = target_indices
        self.gru = nn.GRU(n_features, hidden, batch_first=True)
        self.out = nn.Linear(hidden, len(target_indices) * 2)

    def run_single_recurrent_step(self, curr_input, hidden):
        output, hidden = self.gru(curr_input, hidden)
        params = self.out(output).view(output.shape[0], 1, len(self.target_indices), 2)
        mean, log_std = params[..., 0], params[..., 1]
        return torch.stack([mean, log_std.clamp(-3, 2).exp()], dim=-1), hidden

    def forward(self, inputs, hidden, dec_output_seq_length, teacher_force_prob):
        batch_size = inputs.shape[0]
        outputs = torch.zeros(batch_size, dec_output_seq_length, len(self.target_indices), 2)
        curr_input = inputs[:, 0:1, :]
        for t in range(dec_output_seq_length):
            dec_output, hidden = self.run_single_recurrent_step(curr_input, hidden)
            outputs[:, t:t + 1, :, :] = dec_output
            sample = Seq2Seq.sample_from_output(dec_output)
            teacher_force = bool(torch.rand(()) < teacher_force_prob)
            curr_input = inputs[:, t:t + 1, :].clone()
            if not teacher_force:
                curr_input[:, :, self.target_indices] = sample
        return outputs


class Seq2Seq(nn.Module):
    def __init__(self, n_features=3, target_indices=(0,)):
        super().__init__()
        self.encoder = Encoder(n_features)
        self.decoder = Decoder(n_features, list(target_indices))

    @staticmethod
    def sample_from_output(dec_output):
        return torch.distributions.Normal(dec_output[..., 0], dec_output[..., 1]).sample()

    def forward(self, enc_inputs, dec_inputs, out_len, teacher_force_prob=0.5):
        _, hidden = self.encoder(enc_inputs)
        return self.decoder(dec_inputs, hidden, out_len, teacher_force_prob)

    @staticmethod
    def compute_loss(prediction, target):
        dist = torch.distributions.Normal(prediction[..., 0], prediction[..., 1])
        return -dist.log_prob(target).mean()


def make_batch(batch=4, enc_len=6, dec_len=3, n_features=3):
    series = torch.sin(torch.linspace(0, 3, enc_len + dec_len)).repeat(batch, 1)
    x = torch.stack([series, torch.randn_like(series) * 0.1, torch.cos(series)], dim=-1)
    return x[:, :enc_len], x[:, enc_len - 1:-1], x[:, enc_len:, :1]


def main():
    torch.manual_seed(0)
    model = Seq2Seq()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    w0 = model.decoder.out.weight.detach().clone()
    for epoch in range(3):
        enc_x, dec_x, y = make_batch()
        optimizer.zero_grad()
        prediction = model(enc_x, dec_x, out_len=3)
        loss = Seq2Seq.compute_loss(prediction, y)
        loss.backward()
        optimizer.step()
        print(epoch, round(loss.item(), 4))
    print("weight change", (model.decoder.out.weight - w0).abs().max().item())


if __name__ == "__main__":
    main()
