# corpus: 1-D "artist painting" GAN (tutorial 406): D_loss.backward(retain_graph=True), then opt_D.step() changes D's weights in place before G_loss backpropagates through the same D forward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/MorvanZhou/PyTorch-Tutorial/pull/91
import argparse

import numpy as np
import torch
import torch.nn as nn


def parse_args():
    parser = argparse.ArgumentParser(description="GAN that learns to paint like an artist")
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr_g", type=float, default=1e-4)
    parser.add_argument("--lr_d", type=float, default=1e-4)
    parser.add_argument("--n_ideas", type=int, default=5)
    parser.add_argument("--art_components", type=int, default=15)
    parser.add_argument("--steps", type=int, default=20)
    return parser.parse_args([])


def artist_works(paint_points):
    # painting from the famous artist (real target)
    a = np.random.uniform(1, 2, size=paint_points.shape[0])[:, np.newaxis]
    paintings = a * np.power(paint_points, 2) + (a - 1)
    return torch.from_numpy(paintings).float()


def build_models(args):
    G = nn.Sequential(              # Generator
        nn.Linear(args.n_ideas, 128),
        nn.ReLU(),
        nn.Linear(128, args.art_components),
    )
    D = nn.Sequential(              # Discriminator
        nn.Linear(args.art_components, 128),
        nn.ReLU(),
        nn.Linear(128, 1),
        nn.Sigmoid(),
    )
    return G, D


def train(args):
    paint_points = np.vstack([np.linspace(-1, 1, args.art_components) for _ in range(args.batch_size)])
    G, D = build_models(args)
    opt_D = torch.optim.Adam(D.parameters(), lr=args.lr_d)
    opt_G = torch.optim.Adam(G.parameters(), lr=args.lr_g)

    for step in range(args.steps):
        artist_paintings = artist_works(paint_points)
        G_ideas = torch.randn(args.batch_size, args.n_ideas)
        G_paintings = G(G_ideas)

        prob_artist0 = D(artist_paintings)          # D try to increase this prob
        prob_artist1 = D(G_paintings)               # D try to reduce this prob

        D_loss = -torch.mean(torch.log(prob_artist0) + torch.log(1. - prob_artist1))
        G_loss = torch.mean(torch.log(1. - prob_artist1))

        opt_D.zero_grad()
        D_loss.backward(retain_graph=True)          # reusing computational graph
        opt_D.step()  # expect: GG111

        opt_G.zero_grad()
        G_loss.backward()  # also: GG111
        opt_G.step()

        if step % 5 == 0:
            print("step %d  D accuracy %.2f  D loss %.3f" % (step, prob_artist0.mean().item(), -D_loss.item()))
    return G, D


def main():
    np.random.seed(1)
    torch.manual_seed(1)
    args = parse_args()
    train(args)


if __name__ == "__main__":
    main()
