# corpus: CNN features -> ConvLSTM -> FC video trainer; the (h, c) state is carried from window to window without detach and each window's backward uses retain_graph=True to silence the freed-graph error, so every backward re-walks all previous windows (silent, graph and time grow per window)
# source: https://github.com/automan000/Convolutional_LSTM_PyTorch/issues/2
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvLSTMCell(nn.Module):
    def __init__(self, input_channels, hidden_channels, kernel_size=3):
        super().__init__()
        self.hidden_channels = hidden_channels
        self.gates = nn.Conv2d(input_channels + hidden_channels, 4 * hidden_channels,
                               kernel_size, padding=kernel_size // 2)

    def forward(self, x, state):
        h, c = state
        i, f, o, g = self.gates(torch.cat([x, h], dim=1)).chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c

    def init_hidden(self, batch_size, shape):
        h, w = shape
        return (torch.zeros(batch_size, self.hidden_channels, h, w),
                torch.zeros(batch_size, self.hidden_channels, h, w))


class VideoClassifier(nn.Module):
    def __init__(self, in_channels=3, feat_channels=8, hidden_channels=8, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(in_channels, feat_channels, 3, padding=1), nn.ReLU())
        self.cell = ConvLSTMCell(feat_channels, hidden_channels)
        self.fc = nn.Linear(hidden_channels, num_classes)

    def classify(self, h):
        return self.fc(F.adaptive_avg_pool2d(h, 1).flatten(1))


class VideoTrainer:
    def __init__(self, model, window=3, lr=1e-3):
        self.model = model
        self.window = window
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train_video(self, frames, label):
        T, B, C, H, W = frames.shape
        h, c = self.model.cell.init_hidden(B, (H, W))
        self.optimizer.zero_grad()
        losses = []
        for start in range(0, T, self.window):
            for t in range(start, min(start + self.window, T)):
                feat = self.model.features(frames[t])
                h, c = self.model.cell(feat, (h, c))  # also: GG302
            loss = self.criterion(self.model.classify(h), label)
            loss.backward(retain_graph=True)  # expect: GG302
            losses.append(loss.item())
        self.optimizer.step()
        return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    trainer = VideoTrainer(VideoClassifier())
    for video in range(2):
        frames = torch.randn(9, 2, 3, 6, 6)
        label = torch.randint(0, 4, (2,))
        print(f"video {video}: loss {trainer.train_video(frames, label):.4f}")


if __name__ == "__main__":
    main()
