# corpus: openWakeWord-style wake-word classifier with hard-example mining that accumulates gradients until 128 samples are seen, but optimizer.zero_grad() runs every batch, discarding the accumulated gradients before each step
# source: https://github.com/dscripka/openWakeWord/issues/316
import argparse

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n_classes=1, input_shape=(16, 96), layer_dim=32, lr=1e-3):
        super().__init__()
        self.model = nn.Sequential(
            nn.Flatten(),
            nn.Linear(input_shape[0] * input_shape[1], layer_dim),
            nn.LayerNorm(layer_dim),
            nn.ReLU(),
            nn.Linear(layer_dim, n_classes),
            nn.Sigmoid(),
        )
        self.loss = torch.nn.functional.binary_cross_entropy
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.history = {"loss": []}

    def train_model(self, X, max_steps, negative_weight):
        accumulated_samples = 0
        for step_ndx, data in enumerate(X, 0):
            if step_ndx >= max_steps:
                break
            x, y = data[0], data[1]
            y_ = y[..., None].to(torch.float32)

            self.optimizer.zero_grad()  # expect: GG201
            predictions = self.model(x)

            # hard-example mining: only keep examples the model still gets wrong
            keep = ((y == 0) & (predictions.squeeze() >= 0.001)) | ((y == 1) & (predictions.squeeze() < 0.999))
            w = torch.where(y_ == 0, negative_weight, 1.0)
            loss = self.loss(predictions[keep], y_[keep], w[keep])
            loss.backward()
            accumulated_samples += int(keep.sum())

            if accumulated_samples >= 128:
                self.optimizer.step()
                accumulated_samples = 0

            self.history["loss"].append(loss.detach().item())


def make_batches(n_batches, batch_size, input_shape):
    batches = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, *input_shape)
        y = torch.randint(0, 2, (batch_size,))
        batches.append((x, y))
    return batches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--batch_size", type=int, default=48)
    parser.add_argument("--negative_weight", type=float, default=5.0)
    args = parser.parse_args([])
    torch.manual_seed(0)
    oww = Model()
    X = make_batches(args.steps, args.batch_size, (16, 96))
    oww.train_model(X, max_steps=args.steps, negative_weight=args.negative_weight)
    print("final loss", oww.history["loss"][-1])


if __name__ == "__main__":
    main()
