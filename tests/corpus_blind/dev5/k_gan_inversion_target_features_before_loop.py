# corpus: GAN "inspirational generation" / inversion by gradient descent on the latent: the target image's features are extracted once before the loop with a feature extractor whose weights still require grad, so every iteration's loss hangs off that pre-loop graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/121
import argparse

import torch
import torch.nn as nn
import torch.optim as optim


class Generator(nn.Module):
    def __init__(self, dim_latent=16, size=8):
        super().__init__()
        self.size = size
        self.net = nn.Sequential(nn.Linear(dim_latent, 64), nn.LeakyReLU(0.2), nn.Linear(64, 3 * size * size), nn.Tanh())

    def forward(self, z):
        return self.net(z).view(-1, 3, self.size, self.size)


class FeatureExtractor(nn.Module):
    """Stand-in for the VGG layers used as perceptual feature extractor."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())

    def forward(self, x):
        return self.features(x).flatten(1)


class InspirationalGeneration:
    def __init__(self, generator, feature_extractor, dim_latent):
        self.generator = generator
        self.feature_extractor = feature_extractor
        self.dim_latent = dim_latent

    def gradient_descent_on_input(self, input_image, n_steps=3, lr=0.1):
        var_noise = torch.randn(input_image.size(0), self.dim_latent, requires_grad=True)
        optimizer = optim.Adam([var_noise], betas=[0.0, 0.99], lr=lr)

        features_in = self.feature_extractor(input_image)  # expect: GG103

        losses = []
        for iter_ in range(n_steps):
            optimizer.zero_grad()
            self.generator.zero_grad()
            self.feature_extractor.zero_grad()

            output_gan = self.generator(var_noise)
            features_out = self.feature_extractor(output_gan)
            loss = ((features_in - features_out) ** 2).mean(dim=1)
            loss.sum(dim=0).backward()  # also: GG103
            optimizer.step()
            losses.append(loss.sum().item())
            print(iter_, ": ", losses[-1])
        return output_gan.detach(), var_noise.detach(), losses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_steps", type=int, default=3)
    parser.add_argument("--dim_latent", type=int, default=16)
    args = parser.parse_args([])
    torch.manual_seed(0)
    generator = Generator(args.dim_latent)
    feature_extractor = FeatureExtractor()
    target = torch.rand(1, 3, 8, 8) * 2 - 1
    module = InspirationalGeneration(generator, feature_extractor, args.dim_latent)
    module.gradient_descent_on_input(target, n_steps=args.n_steps)


if __name__ == "__main__":
    main()
