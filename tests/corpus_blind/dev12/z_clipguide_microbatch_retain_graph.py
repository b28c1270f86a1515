# corpus: pytti-style CLIP-guided image synthesis: the image is decoded and the augmentation/image losses are built once before the gradient-accumulation loop, and every micro-batch calls total_loss_mb.backward(retain_graph=True) only so the next micro-batch can backpropagate into that shared graph again, the last micro-batch included (silent: saved buffers of each micro-batch are kept, and after the final backward the decode and CLIP graphs stay alive until train() returns instead of being freed)
# source: https://github.com/pytti-tools/pytti-core/pull/108
import math
import random

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


def unpack_dict(D, n=2):
    ds = [{k: V[i] for k, V in D.items()} for i in range(n)]
    return tuple(ds)


def format_input(tensor, source, dest):
    return tensor


# ---------------------------------------------------------- image model
class PixelImage(nn.Module):
    def __init__(self, width, height):
        super().__init__()
        self.tensor = nn.Parameter(torch.randn(1, 3, height, width) * 0.1)

    def decode_training_tensor(self):
        return torch.sigmoid(self.tensor)

    def image_loss(self):
        return [SmoothingLoss(weight=0.1)]

    @torch.no_grad()
    def update(self):
        self.tensor.clamp_(-6, 6)


class SmoothingLoss(nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.weight = weight

    def forward(self, image_rep):
        img = image_rep.decode_training_tensor()
        raw = (img[..., 1:, :] - img[..., :-1, :]).abs().mean()
        return raw * self.weight, raw


class TVLoss(nn.Module):
    def __init__(self, weight=0.5):
        super().__init__()
        self.weight = weight

    def forward(self, z, image_rep):
        raw = (z[..., :, 1:] - z[..., :, :-1]).pow(2).mean()
        return raw * self.weight, raw


# ------------------------------------------------------ CLIP stand-ins
class Perceptor(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.GELU(),
                                  nn.Conv2d(8, 8, 3, stride=2, padding=1))
        self.proj = nn.Linear(8 * 4 * 4, dim)
        for p in self.parameters():
            p.requires_grad_(False)

    def encode_image(self, x):
        return self.proj(self.conv(x).flatten(1))


class HDMultiClipEmbedder(nn.Module):
    def __init__(self, perceptor, cutn=4, cut_size=16):
        super().__init__()
        self.perceptor = perceptor
        self.cutn = cutn
        self.cut_size = cut_size

    def forward(self, image_rep, input):
        side = input.shape[-1]
        cutouts, offsets, sizes = [], [], []
        for _ in range(self.cutn):
            size = int(side * random.uniform(0.5, 1.0))
            ox, oy = random.randint(0, side - size), random.randint(0, side - size)
            cut = input[:, :, oy:oy + size, ox:ox + size]
            cutouts.append(F.interpolate(cut, (self.cut_size, self.cut_size), mode='bilinear', align_corners=False))
            offsets.append([ox, oy])
            sizes.append([size, size])
        embeds = self.perceptor.encode_image(torch.cat(cutouts))
        return embeds, torch.tensor(offsets), torch.tensor(sizes)


class Prompt(nn.Module):
    def __init__(self, embed, weight=1.0, text="a painting"):
        super().__init__()
        self.register_buffer("embed", F.normalize(embed, dim=-1))
        self.weight = weight
        self.text = text

    def forward(self, input, offsets, sizes):
        dists = (F.normalize(input, dim=-1) - self.embed).norm(dim=-1).div(2).arcsin().pow(2).mul(2)
        raw = dists.mean()
        return raw * self.weight, raw


# ----------------------------------------------------------- ImageGuide
class DirectImageGuide:
    def __init__(self, image_rep, embedder, lr=0.05):
        self.image_rep = image_rep
        self.embedder = embedder
        self.optimizer = optim.Adam(image_rep.parameters(), lr)
        self.history = []

    def train(self, i, prompts, interp_prompts, loss_augs, interp_steps=0,
              gradient_accumulation_steps: int = 1):
        self.optimizer.zero_grad()
        z = self.image_rep.decode_training_tensor()
        aug_losses = {aug: aug(format_input(z, self.image_rep, aug), self.image_rep) for aug in loss_augs}
        image_augs = self.image_rep.image_loss()
        image_losses = {aug: aug(self.image_rep) for aug in image_augs}

        losses, losses_raw = [], []
        for mb_i in range(gradient_accumulation_steps):
            t = 1
            interp_losses = [0]
            image_embeds, offsets, sizes = self.embedder(self.image_rep, input=z)
            if i < interp_steps:
                t = i / interp_steps
                interp_losses = [prompt(image_embeds, offsets, sizes)[0] * (1 - t) for prompt in interp_prompts]
            prompt_losses = {prompt: prompt(format_input(image_embeds, self.embedder, prompt),
                                            format_input(offsets, self.embedder, prompt),
                                            format_input(sizes, self.embedder, prompt))
                             for prompt in prompts}

            losses, losses_raw = zip(*map(unpack_dict, [prompt_losses, aug_losses, image_losses]))
            losses = list(losses)
            losses_raw = list(losses_raw)

            for v in prompt_losses.values():
                v[0].mul_(t)

            total_loss_mb = sum(map(lambda x: sum(x.values()), losses)) + sum(interp_losses)
            total_loss_mb /= gradient_accumulation_steps
            total_loss_mb.backward(retain_graph=True)  # expect: GG302

        self.optimizer.step()
        self.image_rep.update()
        self.optimizer.zero_grad()
        record = {str(getattr(k, "text", type(k).__name__)): v.item() for d in losses_raw for k, v in d.items()}
        self.history.append(record)
        return record


def main():
    perceptor = Perceptor()
    image_rep = PixelImage(24, 24)
    embedder = HDMultiClipEmbedder(perceptor)
    target = perceptor.encode_image(torch.rand(1, 3, 16, 16)).detach()[0]
    prompts = [Prompt(target, weight=1.0, text="a lighthouse in a storm")]
    guide = DirectImageGuide(image_rep, embedder)
    for i in range(4):
        record = guide.train(i, prompts, [], [TVLoss()], gradient_accumulation_steps=3)
        print(i, record)


if __name__ == "__main__":
    main()
