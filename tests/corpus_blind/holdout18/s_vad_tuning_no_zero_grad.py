# corpus: Fine-tuning loop for a voice-activity LSTMCell decoder on top of a frozen STFT/encoder that calls backward and step every batch but never zero_grad, so gradients from all previous batches keep accumulating.
# source: https://github.com/snakers4/silero-vad/pull/699
from types import SimpleNamespace

import torch
import torch.nn as nn


class FrozenFrontend(nn.Module):
    def __init__(self, num_samples, context_size):
        super().__init__()
        self.stft = nn.Conv1d(1, 32, kernel_size=num_samples + context_size, stride=num_samples)
        self.encoder = nn.Sequential(nn.Conv1d(32, 128, kernel_size=1), nn.ReLU())
        for p in self.parameters():
            p.requires_grad_(False)


class VADDecoderRNNJIT(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTMCell(128, 128)
        self.decoder = nn.Sequential(nn.Dropout(0.1),
                                     nn.ReLU(),
                                     nn.Conv1d(128, 1, kernel_size=1),
                                     nn.Sigmoid())

    def forward(self, x, state=torch.zeros(0)):
        x = x.squeeze(-1)
        if len(state):
            h, c = self.rnn(x, (state[0], state[1]))
        else:
            h, c = self.rnn(x)
        x = h.unsqueeze(-1).float()
        state = torch.stack([h, c])
        x = self.decoder(x)
        return x, state


class AverageMeter(object):
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def make_loader(n_batches, batch, n_frames, num_samples):
    loader = []
    for _ in range(n_batches):
        wav = torch.randn(batch, n_frames * num_samples)
        targets = (torch.rand(batch, n_frames) > 0.5).float()
        masks = torch.ones(batch, n_frames)
        loader.append((wav, targets, masks))
    return loader


def train(config, loader, jit_model, decoder, criterion, optimizer, device):
    losses = AverageMeter()
    decoder.train()

    context_size = 32 if config.tune_8k else 64
    num_samples = 256 if config.tune_8k else 512
    stft_layer = jit_model.stft
    encoder_layer = jit_model.encoder

    with torch.enable_grad():
        for _, (x, targets, masks) in enumerate(loader):
            targets = targets.to(device)
            x = x.to(device)
            masks = masks.to(device)
            x = torch.nn.functional.pad(x, (context_size, 0))

            outs = []
            state = torch.zeros(0)
            for i in range(context_size, x.shape[1], num_samples):
                input_ = x[:, i - context_size:i + num_samples].unsqueeze(1)
                out = stft_layer(input_)
                out = encoder_layer(out)
                out, state = decoder(out, state)
                outs.append(out)
            stacked = torch.cat(outs, dim=2).squeeze(1)

            loss = criterion(stacked, targets)
            loss = (loss * masks).mean()
            loss.backward()  # expect: GG201
            optimizer.step()
            losses.update(loss.item(), masks.numel())

    return losses.avg


def main():
    torch.manual_seed(0)
    config = SimpleNamespace(tune_8k=False, learning_rate=5e-4, num_epochs=2)
    device = torch.device("cpu")
    jit_model = FrozenFrontend(num_samples=512, context_size=64)
    decoder = VADDecoderRNNJIT()
    criterion = nn.BCELoss(reduction="none")
    optimizer = torch.optim.SGD(decoder.parameters(), lr=config.learning_rate)
    loader = make_loader(n_batches=3, batch=2, n_frames=4, num_samples=512)
    for epoch in range(config.num_epochs):
        train_loss = train(config, loader, jit_model, decoder, criterion, optimizer, device)
        print(f"epoch {epoch} train loss {train_loss:.4f}")


if __name__ == "__main__":
    main()
