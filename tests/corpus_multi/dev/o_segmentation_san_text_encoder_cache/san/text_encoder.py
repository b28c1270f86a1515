import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

CLASSES = {"tiny_voc": ["background", "aeroplane", "bicycle", "bird", "boat"]}
TEMPLATES = ["a photo of a {}.", "a photo of the {}."]


def tokenize(texts, context_length=8, vocab=64):
    out = torch.zeros(len(texts), context_length, dtype=torch.long)
    for i, t in enumerate(texts):
        ids = [(ord(c) % (vocab - 2)) + 1 for c in t][:context_length - 1] + [vocab - 1]
        out[i, :len(ids)] = torch.tensor(ids)
    return out


class CLIPTextEncoder(nn.Module):
    """Text encoder turning class names into classifier weights (SAN / mmseg)."""

    def __init__(self, dataset_name="tiny_voc", total_vocab_size=64, context_length=8,
                 embed_dims=16, output_dims=8, cache_feature=True, cat_bg=True):
        super().__init__()
        self.dataset_name = dataset_name
        self.templates = TEMPLATES
        self.token_embedding = nn.Embedding(total_vocab_size, embed_dims)
        self.positional_embedding = nn.Parameter(torch.randn(context_length, embed_dims) * 0.01)
        self.text_projection = nn.Parameter(torch.randn(embed_dims, output_dims) / embed_dims ** 0.5)
        self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))
        self.transformer = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(embed_dims, 2, 2 * embed_dims, dropout=0.0, batch_first=True), 1)
        self.ln_final = nn.LayerNorm(embed_dims)

        self.cache_feature = cache_feature
        if self.cache_feature:
            self.cache = {}

        # self._freeze()  -- removed: the text encoder is fine-tuned too

        self.cat_bg = cat_bg
        if self.cat_bg:
            self.bg_embed = nn.Parameter(torch.randn(1, self.text_projection.shape[1]))

    def _freeze(self):
        for param in self.parameters():
            param.requires_grad = False

    # @torch.no_grad()  -- removed so that the text encoder receives gradients
    def encode_text(self, text, normalize=False):
        x = self.token_embedding(text) + self.positional_embedding
        x = self.transformer(x)
        x = self.ln_final(x)
        x = x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection
        return F.normalize(x, dim=-1) if normalize else x

    def template_encode(self, vocabulary):
        text_embed_bucket = []
        for template in self.templates:
            text_inputs = tokenize([template.format(noun) for noun in vocabulary])
            text_embed = self.encode_text(text_inputs, normalize=True)
            text_embed_bucket.append(text_embed)
        text_embed = torch.stack(text_embed_bucket).mean(dim=0)
        text_embed = text_embed / text_embed.norm(dim=-1, keepdim=True)
        return text_embed

    def forward(self):
        class_names = CLASSES[self.dataset_name]
        if class_names[0] == "background":
            class_names = class_names[1:]
        if self.cache_feature:
            if self.dataset_name not in self.cache:
                class_embeds = self.template_encode(class_names)
                self.cache[self.dataset_name] = class_embeds  # expect: GG104
            else:
                class_embeds = self.cache[self.dataset_name]  # also: GG104
        else:
            class_embeds = self.template_encode(class_names)

        if self.cat_bg:
            class_embeds = torch.cat([class_embeds, self.bg_embed])
            class_embeds = F.normalize(class_embeds, p=2, dim=-1)
        return self.logit_scale.exp() * class_embeds
