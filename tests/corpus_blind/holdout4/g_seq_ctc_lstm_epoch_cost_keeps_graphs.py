# corpus: one-layer LSTM acoustic model trained with CTC; train_model() returns the cost tensor and the epoch loop sums it as a tensor, so every batch's autograd graph stays reachable from epoch_cost for the whole epoch (silent memory growth)
# source: https://discuss.pytorch.org/t/gpu-memory-gets-filled/8190
import torch
import torch.nn as nn


class AcousticModel(nn.Module):
    def __init__(self, n_feats, n_hidden, n_classes):
        super().__init__()
        self.lstm = nn.LSTM(n_feats, n_hidden, num_layers=1)
        self.proj = nn.Linear(n_hidden, n_classes)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.proj(out).log_softmax(-1)


class CTCTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.ctc_loss = nn.CTCLoss(blank=0, zero_infinity=True)
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)

    def train_model(self, batch):
        feats, targets, input_lengths, target_lengths = batch
        self.opt.zero_grad()
        output = self.model(feats)
        cost = self.ctc_loss(output, targets, input_lengths, target_lengths)
        cost.backward()
        self.opt.step()
        return cost

    def run_epoch(self, batches):
        epoch_cost = 0
        for batch in batches:
            cost = self.train_model(batch)
            epoch_cost += cost  # expect: GG301
        return epoch_cost / len(batches)


def make_batch(T=20, N=2, n_feats=13, n_classes=10, S=5):
    feats = torch.randn(T, N, n_feats)
    targets = torch.randint(1, n_classes, (N, S))
    input_lengths = torch.full((N,), T, dtype=torch.long)
    target_lengths = torch.full((N,), S, dtype=torch.long)
    return feats, targets, input_lengths, target_lengths


def main():
    torch.manual_seed(0)
    trainer = CTCTrainer(AcousticModel(13, 24, 10))
    batches = [make_batch() for _ in range(6)]
    for epoch in range(2):
        avg = trainer.run_epoch(batches)
        print(f"epoch {epoch}: ctc {avg.item():.3f}")


if __name__ == "__main__":
    main()
