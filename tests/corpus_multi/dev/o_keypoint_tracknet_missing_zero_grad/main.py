# corpus: court keypoint heatmap training; base_trainer.train never clears the gradients, so every optimizer.step() applies the sum of all earlier batches' gradients
# source: https://github.com/yastrebksv/TennisCourtDetector/issues/7
import argparse

import torch
import torch.nn as nn

from base_trainer import train
from tracknet import BallTrackerNet


def make_loader(num_batches=3, batch_size=2, num_kps=15, size=16):
    loader = []
    for _ in range(num_batches):
        img = torch.rand(batch_size, 3, size, size)
        hm = torch.zeros(batch_size, num_kps, size, size)
        ys = torch.randint(0, size, (batch_size, num_kps))
        xs = torch.randint(0, size, (batch_size, num_kps))
        for b in range(batch_size):
            hm[b, torch.arange(num_kps), ys[b], xs[b]] = 1.0
        loader.append((img, hm))
    return loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--num_epochs', type=int, default=2, help='total training epochs')
    parser.add_argument('--lr', type=float, default=1e-3, help='learning rate')
    parser.add_argument('--steps_per_epoch', type=int, default=1000, help='number of steps per one epoch')
    args = parser.parse_args([])

    torch.manual_seed(0)
    train_loader = make_loader()
    model = BallTrackerNet(out_channels=15)
    device = 'cpu'
    model = model.to(device)

    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), args.lr, betas=(0.9, 0.999), weight_decay=0)

    for epoch in range(args.num_epochs):
        train_loss = train(model, train_loader, optimizer, criterion, device, epoch, args.steps_per_epoch)  # also: GG201
        print('epoch {} train loss = {:.5f}'.format(epoch, train_loss))


if __name__ == '__main__':
    main()
