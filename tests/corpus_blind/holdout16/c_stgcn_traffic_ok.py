# corpus: Spatio-temporal GCN traffic forecaster (STGCN-PyTorch main.py): zero_grad every batch, epoch losses collected as loss.detach().cpu().numpy(), validation under torch.no_grad with detached numpy metrics; correct.
# source: https://github.com/FelixOpolka/STGCN-PyTorch/blob/master/main.py
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

num_timesteps_input = 12
num_timesteps_output = 3
epochs = 2
batch_size = 8


class TimeBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, (1, kernel_size))
        self.conv2 = nn.Conv2d(in_channels, out_channels, (1, kernel_size))
        self.conv3 = nn.Conv2d(in_channels, out_channels, (1, kernel_size))

    def forward(self, X):
        X = X.permute(0, 3, 1, 2)
        temp = self.conv1(X) + torch.sigmoid(self.conv2(X))
        out = F.relu(temp + self.conv3(X))
        return out.permute(0, 2, 3, 1)


class STGCNBlock(nn.Module):
    def __init__(self, in_channels, spatial_channels, out_channels, num_nodes):
        super().__init__()
        self.temporal1 = TimeBlock(in_channels=in_channels, out_channels=out_channels)
        self.Theta1 = nn.Parameter(torch.FloatTensor(out_channels, spatial_channels))
        self.temporal2 = TimeBlock(in_channels=spatial_channels, out_channels=out_channels)
        self.batch_norm = nn.BatchNorm2d(num_nodes)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.Theta1.shape[1])
        self.Theta1.data.uniform_(-stdv, stdv)

    def forward(self, X, A_hat):
        t = self.temporal1(X)
        lfs = torch.einsum("ij,jklm->kilm", [A_hat, t.permute(1, 0, 2, 3)])
        t2 = F.relu(torch.matmul(lfs, self.Theta1))
        t3 = self.temporal2(t2)
        return self.batch_norm(t3)


class STGCN(nn.Module):
    def __init__(self, num_nodes, num_features, num_timesteps_input, num_timesteps_output):
        super().__init__()
        self.block1 = STGCNBlock(in_channels=num_features, out_channels=16, spatial_channels=8, num_nodes=num_nodes)
        self.block2 = STGCNBlock(in_channels=16, out_channels=16, spatial_channels=8, num_nodes=num_nodes)
        self.last_temporal = TimeBlock(in_channels=16, out_channels=16)
        self.fully = nn.Linear((num_timesteps_input - 2 * 5) * 16, num_timesteps_output)

    def forward(self, A_hat, X):
        out1 = self.block1(X, A_hat)
        out2 = self.block2(out1, A_hat)
        out3 = self.last_temporal(out2)
        return self.fully(out3.reshape((out3.shape[0], out3.shape[1], -1)))


def get_normalized_adj(A):
    A = A + np.diag(np.ones(A.shape[0], dtype=np.float32))
    D = np.array(np.sum(A, axis=1)).reshape((-1,))
    D[D <= 10e-5] = 10e-5
    diag = np.reciprocal(np.sqrt(D))
    return np.multiply(np.multiply(diag.reshape((-1, 1)), A), diag.reshape((1, -1))).astype(np.float32)


def generate_dataset(X, num_timesteps_input, num_timesteps_output):
    indices = [(i, i + (num_timesteps_input + num_timesteps_output))
               for i in range(X.shape[2] - (num_timesteps_input + num_timesteps_output) + 1)]
    features, target = [], []
    for i, j in indices:
        features.append(X[:, :, i : i + num_timesteps_input].transpose((0, 2, 1)))
        target.append(X[:, 0, i + num_timesteps_input : j])
    return torch.from_numpy(np.array(features)), torch.from_numpy(np.array(target))


def load_synthetic_traffic(num_nodes=6, steps=80):
    rng = np.random.RandomState(7)
    A = (rng.rand(num_nodes, num_nodes) > 0.6).astype(np.float32)
    A = np.maximum(A, A.T)
    t = np.arange(steps)
    speed = np.sin(t[None, :] / 6.0 + rng.rand(num_nodes, 1) * 3) + 0.1 * rng.randn(num_nodes, steps)
    X = np.stack([speed, np.cos(t / 6.0)[None, :].repeat(num_nodes, 0)], axis=1).astype(np.float32)
    means, stds = X.mean(axis=(0, 2)), X.std(axis=(0, 2))
    X = (X - means.reshape(1, -1, 1)) / stds.reshape(1, -1, 1)
    return A, X, means, stds


def train_epoch(net, optimizer, loss_criterion, A_wave, training_input, training_target, batch_size):
    permutation = torch.randperm(training_input.shape[0])
    epoch_training_losses = []
    for i in range(0, training_input.shape[0], batch_size):
        net.train()
        optimizer.zero_grad()
        indices = permutation[i : i + batch_size]
        X_batch, y_batch = training_input[indices], training_target[indices]
        out = net(A_wave, X_batch)
        loss = loss_criterion(out, y_batch)
        loss.backward()
        optimizer.step()
        epoch_training_losses.append(loss.detach().cpu().numpy())
    return sum(epoch_training_losses) / len(epoch_training_losses)


def main():
    torch.manual_seed(7)
    A, X, means, stds = load_synthetic_traffic()
    split_line = int(X.shape[2] * 0.7)
    training_input, training_target = generate_dataset(X[:, :, :split_line], num_timesteps_input, num_timesteps_output)
    val_input, val_target = generate_dataset(X[:, :, split_line:], num_timesteps_input, num_timesteps_output)
    A_wave = torch.from_numpy(get_normalized_adj(A))
    net = STGCN(A_wave.shape[0], training_input.shape[3], num_timesteps_input, num_timesteps_output)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_criterion = nn.MSELoss()
    training_losses, validation_losses, validation_maes = [], [], []
    for epoch in range(epochs):
        loss = train_epoch(net, optimizer, loss_criterion, A_wave, training_input, training_target, batch_size)
        training_losses.append(loss)
        with torch.no_grad():
            net.eval()
            out = net(A_wave, val_input)
            val_loss = loss_criterion(out, val_target).to(device="cpu")
            validation_losses.append(val_loss.detach().numpy().item())
            out_unnormalized = out.detach().cpu().numpy() * stds[0] + means[0]
            target_unnormalized = val_target.detach().cpu().numpy() * stds[0] + means[0]
            validation_maes.append(np.mean(np.absolute(out_unnormalized - target_unnormalized)))
        print("Training loss: {}".format(training_losses[-1]))
        print("Validation loss: {}".format(validation_losses[-1]))
        print("Validation MAE: {}".format(validation_maes[-1]))


if __name__ == "__main__":
    main()
