import torch
import torch.nn as nn
import torch.nn.functional as F


class SideAdapterHead(nn.Module):
    """Predicts per-pixel embeddings that are matched against class embeddings."""

    def __init__(self, in_channels=16, embed_dims=8):
        super().__init__()
        self.proj = nn.Conv2d(in_channels, embed_dims, 1)

    def forward(self, feats, class_embeds):
        pix = F.normalize(self.proj(feats), dim=1)
        return torch.einsum("bchw,kc->bkhw", pix, class_embeds)


class MultimodalEncoderDecoder(nn.Module):
    def __init__(self, text_encoder):
        super().__init__()
        self.image_encoder = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1), nn.GELU(), nn.Conv2d(16, 16, 3, 1, 1), nn.GELU())
        self.text_encoder = text_encoder
        self.decode_head = SideAdapterHead(16, 8)

    def loss(self, inputs, gt_seg):
        feats = self.image_encoder(inputs)
        class_embeds = self.text_encoder()
        seg_logits = self.decode_head(feats, class_embeds)
        seg_logits = F.interpolate(seg_logits, size=gt_seg.shape[-2:], mode="bilinear", align_corners=False)
        return {"loss_ce": F.cross_entropy(seg_logits, gt_seg)}
