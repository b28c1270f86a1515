from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F

from . import clip

DEVICE = "cpu"


class CLIPImageBackbone(nn.Module):
    """CLIP image backbone."""

    def __init__(self, arch: str, fix: bool = True, proj: bool = True):
        super().__init__()
        model, _ = clip.load(arch, device=DEVICE)
        self.model = model.visual
        self.dtype = model.dtype
        for param in self.model.parameters():
            param.requires_grad = not fix
        if not proj:
            self.model.proj = None

    def forward(self, x):
        return self.model(x.type(self.dtype))


class CLIPTextHead(nn.Module):
    """CLIP text head: class weights are the text embeddings of the prompts."""

    def __init__(self, arch, texts: List[str] = None):
        super().__init__()
        model, _ = clip.load(arch, device=DEVICE)
        self.texts = clip.tokenize(texts).to(DEVICE)
        self.logit_scale = model.logit_scale.exp()  # expect: GG103
        with torch.no_grad():
            self.weights = model.encode_text(self.texts)

    def pre_logits(self, x):
        if isinstance(x, tuple):
            x = x[-1]
        return x

    def forward(self, x):
        x = self.pre_logits(x)
        x = x / x.norm(dim=-1, keepdim=True)
        weights = self.weights / self.weights.norm(dim=-1, keepdim=True)
        cls_score = self.logit_scale * x @ weights.t()  # also: GG103
        return cls_score

    def loss(self, cls_score, gt_label):
        return {"loss": F.cross_entropy(cls_score, gt_label)}

    def forward_train(self, x, gt_label):
        cls_score = self.forward(x)
        return self.loss(cls_score, gt_label)
