# corpus: BEATs-style audio classifier fine-tune: the encoder adds its convolutional positional embedding with `x += x_conv`, overwriting the tensor the conv saved as input, so backward fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/microsoft/unilm/pull/999
import torch
import torch.nn as nn
import torch.nn.functional as F


class SamePad(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.remove = 1 if kernel_size % 2 == 0 else 0

    def forward(self, x):
        return x[:, :, : -self.remove] if self.remove > 0 else x


class TransformerEncoder(nn.Module):
    def __init__(self, dim=16, conv_pos=4, heads=2, layers=1):
        super().__init__()
        pos_conv = nn.Conv1d(dim, dim, kernel_size=conv_pos, padding=conv_pos // 2, groups=2)
        self.pos_conv = nn.Sequential(pos_conv, SamePad(conv_pos), nn.GELU())
        self.layer_norm = nn.LayerNorm(dim)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(dim, heads, dim_feedforward=32, dropout=0.0, batch_first=True)
            for _ in range(layers)
        )

    def extract_features(self, x, padding_mask=None):
        x_conv = self.pos_conv(x.transpose(1, 2))
        x_conv = x_conv.transpose(1, 2)
        x += x_conv  # expect: GG107
        x = self.layer_norm(x)
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=padding_mask)
        return x


class BEATsClassifier(nn.Module):
    def __init__(self, n_mels=8, patch=2, dim=16, n_classes=5):
        super().__init__()
        self.patch_embedding = nn.Conv1d(n_mels, dim, kernel_size=patch, stride=patch, bias=False)
        self.post_extract_proj = nn.Linear(dim, dim)
        self.encoder = TransformerEncoder(dim)
        self.predictor = nn.Linear(dim, n_classes)

    def forward(self, fbank):
        features = self.patch_embedding(fbank.transpose(1, 2)).transpose(1, 2)
        features = self.post_extract_proj(features)
        x = self.encoder.extract_features(features)
        return self.predictor(x.mean(dim=1))


class FineTuner:
    def __init__(self, model, lr=5e-4):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
        self.history = []

    def training_step(self, fbank, labels):
        logits = self.model(fbank)
        loss = F.binary_cross_entropy_with_logits(logits, labels)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG107
        self.optimizer.step()
        return loss.item()

    def fit(self, batches, epochs=2):
        self.model.train()
        for epoch in range(epochs):
            epoch_loss = sum(self.training_step(x, y) for x, y in batches) / len(batches)
            self.history.append(epoch_loss)
            print(f"epoch {epoch}: bce {epoch_loss:.4f}")


def make_audioset_like(n_batches=2, batch=3, frames=10, n_mels=8, n_classes=5):
    return [
        (torch.randn(batch, frames, n_mels), torch.randint(0, 2, (batch, n_classes)).float())
        for _ in range(n_batches)
    ]


def main():
    torch.manual_seed(0)
    tuner = FineTuner(BEATsClassifier())
    tuner.fit(make_audioset_like())


if __name__ == "__main__":
    main()
