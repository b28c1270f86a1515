# corpus: comic text detector (manga-image-translator shape): the async _forward is decorated with @torch.no_grad(), which does not cover a coroutine body, so det_batch_forward_ctd runs the detection/segmentation model with grad enabled and mask.cpu().numpy() fails on the graph-bearing mask
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/zyddnys/manga-image-translator/issues/179
import asyncio
from typing import List, Tuple

import numpy as np
import torch
import torch.nn as nn


class TextDetBase(nn.Module):
    """Shared backbone with a YOLO-style block head, a text-mask head and a line-map head."""

    def __init__(self, ch=8):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.LeakyReLU(0.1),
                                      nn.Conv2d(ch, ch, 3, padding=1), nn.LeakyReLU(0.1))
        self.blk_head = nn.Conv2d(ch, 6, 1)
        self.seg_head = nn.Conv2d(ch, 1, 1)
        self.db_head = nn.Conv2d(ch, 2, 1)

    def forward(self, x):
        feat = self.backbone(x)
        blks = self.blk_head(feat).flatten(2).transpose(1, 2)
        mask = torch.sigmoid(self.seg_head(feat))
        lines = torch.sigmoid(self.db_head(feat))
        return blks, mask, lines


def det_rearrange_forward(img: np.ndarray, dbf, tgt_size: int, max_batch_size: int, device: str):
    """Cut a tall page into tgt_size x tgt_size patches, run them in batches, stitch the maps back."""
    h, w = img.shape[:2]
    if h < tgt_size * 2:
        return None, None
    patches = [img[y:y + tgt_size, :tgt_size] for y in range(0, h - tgt_size + 1, tgt_size)]
    line_maps, masks = [], []
    for i in range(0, len(patches), max_batch_size):
        batch = np.stack(patches[i:i + max_batch_size])
        lines, mask = dbf(batch, device)
        line_maps.append(lines)
        masks.append(mask)
    lines = np.concatenate([np.concatenate(list(lm), axis=1) for lm in line_maps], axis=1)
    mask = np.concatenate([np.concatenate(list(m), axis=1) for m in masks], axis=1)
    return lines, mask


class ComicTextDetector:
    def __init__(self, input_size=16, conf_thresh=0.4):
        self.input_size = (input_size, input_size)
        self.conf_thresh = conf_thresh
        self.device = "cpu"
        self.model = None

    async def _load(self, device: str):
        self.device = device
        self.model = TextDetBase()
        self.model.eval()

    def det_batch_forward_ctd(self, batch: np.ndarray, device: str) -> Tuple[np.ndarray, np.ndarray]:
        batch = np.transpose(batch.astype(np.float32) / 255.0, (0, 3, 1, 2))
        batch = torch.from_numpy(batch).to(device)
        _, mask, lines = self.model(batch)  # also: GG110
        mask = mask.cpu().numpy()  # expect: GG110
        lines = lines.cpu().numpy()
        return lines, mask

    @torch.no_grad()
    async def _forward(self, image: np.ndarray, det_rearrange_max_batches: int = 2) -> Tuple[List[list], np.ndarray]:
        lines_map, mask = det_rearrange_forward(image, self.det_batch_forward_ctd, self.input_size[0],
                                                det_rearrange_max_batches, self.device)
        blks = []
        if lines_map is None:
            return blks, None
        mask = (mask > 0.3).astype(np.uint8)
        ys, xs = np.nonzero(mask[0])
        if len(xs):
            blks.append([int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())])
        return blks, mask

    async def detect(self, image: np.ndarray):
        if self.model is None:
            await self._load("cpu")
        return await self._forward(image)


async def translate_page(detector: ComicTextDetector, image: np.ndarray):
    blks, mask = await detector.detect(image)
    print("text blocks:", blks, "mask shape:", None if mask is None else mask.shape)
    return blks


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    page = (np.random.rand(48, 16, 3) * 255).astype(np.uint8)
    asyncio.run(translate_page(ComicTextDetector(), page))


if __name__ == "__main__":
    main()
