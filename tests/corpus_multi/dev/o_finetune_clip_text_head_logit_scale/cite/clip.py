"""A pocket-sized stand-in for openai/clip: same attribute names, tiny sizes."""
import math

import torch
import torch.nn as nn

_VOCAB = 64


def tokenize(texts, context_length=8):
    out = torch.zeros(len(texts), context_length, dtype=torch.long)
    for i, t in enumerate(texts):
        ids = [(ord(c) % (_VOCAB - 2)) + 1 for c in t.lower()][:context_length - 1]
        ids.append(_VOCAB - 1)  # end-of-text token, highest id
        out[i, :len(ids)] = torch.tensor(ids)
    return out


class VisualTransformer(nn.Module):
    def __init__(self, width=16, output_dim=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, kernel_size=4, stride=4, bias=False)
        self.ln_post = nn.LayerNorm(width)
        self.proj = nn.Parameter(torch.randn(width, output_dim) / math.sqrt(width))

    def forward(self, x):
        x = self.conv1(x).flatten(2).mean(-1)
        x = self.ln_post(x)
        if self.proj is not None:
            x = x @ self.proj
        return x


class CLIP(nn.Module):
    def __init__(self, embed_dim=8, width=16):
        super().__init__()
        self.visual = VisualTransformer(width, embed_dim)
        self.token_embedding = nn.Embedding(_VOCAB, width)
        self.ln_final = nn.LayerNorm(width)
        self.text_projection = nn.Parameter(torch.randn(width, embed_dim) / math.sqrt(width))
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    @property
    def dtype(self):
        return self.visual.conv1.weight.dtype

    def encode_text(self, text):
        x = self.ln_final(self.token_embedding(text))
        x = x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection
        return x


def load(name, device="cpu"):
    """Deterministic 'pretrained' weights so backbone and head agree."""
    g = torch.random.fork_rng()
    with g:
        torch.manual_seed(1234)
        model = CLIP().to(device)
    return model, None
