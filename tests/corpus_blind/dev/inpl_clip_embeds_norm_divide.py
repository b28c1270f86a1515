# corpus: open-vocabulary detection head normalises image and query embeddings with `/=` right after torch.linalg.norm saved them
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/huggingface/transformers/pull/24529
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class HeadConfig:
    vision_dim: int = 12
    text_dim: int = 10
    embed_dim: int = 8
    num_patches: int = 6
    num_queries: int = 3


class ClassPredictionHead(nn.Module):
    def __init__(self, cfg: HeadConfig):
        super().__init__()
        self.dense0 = nn.Linear(cfg.vision_dim, cfg.embed_dim)
        self.logit_shift = nn.Linear(cfg.vision_dim, 1)
        self.logit_scale = nn.Linear(cfg.vision_dim, 1)
        self.elu = nn.ELU()

    def forward(self, image_embeds, query_embeds):
        image_class_embeds = self.dense0(image_embeds)
        # Normalize image and text features
        image_class_embeds /= torch.linalg.norm(image_class_embeds, dim=-1, keepdim=True) + 1e-6  # expect: GG107
        query_embeds /= torch.linalg.norm(query_embeds, dim=-1, keepdim=True) + 1e-6  # also: GG107
        pred_logits = torch.einsum("...pd,...qd->...pq", image_class_embeds, query_embeds)
        shift = self.logit_shift(image_embeds)
        scale = self.elu(self.logit_scale(image_embeds)) + 1
        return (pred_logits + shift) * scale


class Detector(nn.Module):
    def __init__(self, cfg: HeadConfig):
        super().__init__()
        self.text_proj = nn.Linear(cfg.text_dim, cfg.embed_dim)
        self.class_head = ClassPredictionHead(cfg)

    def forward(self, patch_feats, text_feats):
        query_embeds = self.text_proj(text_feats)
        return self.class_head(patch_feats, query_embeds)


def main():
    torch.manual_seed(0)
    cfg = HeadConfig()
    model = Detector(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    patches = torch.randn(2, cfg.num_patches, cfg.vision_dim)
    texts = torch.randn(2, cfg.num_queries, cfg.text_dim)
    targets = torch.randint(0, 2, (2, cfg.num_patches, cfg.num_queries)).float()
    logits = model(patches, texts)
    loss = F.binary_cross_entropy_with_logits(logits, targets)
    opt.zero_grad()
    loss.backward()  # also: GG107
    opt.step()


if __name__ == "__main__":
    main()
