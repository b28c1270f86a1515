# corpus: An open-vocabulary segmentor unfreezes its CLIP text encoder (no _freeze, no @torch.no_grad) but keeps cache_feature=True, so the class embeddings computed in step 1 are cached and step 2 backpropagates into their freed graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/open-mmlab/mmsegmentation/issues/3577
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ("background", "road", "car", "person", "tree")
TEMPLATES = ("a photo of a {}.", "a blurry photo of a {}.")


def tokenize(texts, context_length=8, vocab_size=64):
    tokens = torch.zeros(len(texts), context_length, dtype=torch.long)
    for i, text in enumerate(texts):
        words = text.replace(".", "").split()[: context_length - 1]
        ids = [sum(ord(c) for c in w) % (vocab_size - 1) for w in words] + [vocab_size - 1]
        tokens[i, : len(ids)] = torch.tensor(ids)
    return tokens


class CLIPTextEncoder(nn.Module):
    def __init__(self, dataset_name="toy", embed_dims=16, output_dims=16, context_length=8,
                 total_vocab_size=64, cache_feature=True, cat_bg=True):
        super(CLIPTextEncoder, self).__init__()
        self.dataset_name = dataset_name
        self.templates = TEMPLATES
        self.token_embedding = nn.Embedding(total_vocab_size, embed_dims)
        self.positional_embedding = nn.Parameter(0.01 * torch.randn(context_length, embed_dims))
        self.text_projection = nn.Parameter(0.1 * torch.randn(embed_dims, output_dims))
        self.logit_scale = nn.Parameter(torch.ones([]) * 2.0)
        self.transformer = nn.ModuleList([nn.TransformerEncoderLayer(embed_dims, 2, 32, dropout=0.0)])
        self.ln_final = nn.LayerNorm(embed_dims)
        self.cache_feature = cache_feature
        if self.cache_feature:
            self.cache = {}
        self.cat_bg = cat_bg
        if self.cat_bg:
            self.bg_embed = nn.Parameter(torch.randn(1, output_dims))

    def encode_text(self, text, normalize=False):
        x = self.token_embedding(text)
        x = x + self.positional_embedding
        x = x.permute(1, 0, 2)
        for block in self.transformer:
            x = block(x)
        x = x.permute(1, 0, 2)
        x = self.ln_final(x)
        x = x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection
        return F.normalize(x, dim=-1) if normalize else x

    def template_encode(self, vocabulary):
        text_embed_bucket = []
        for template in self.templates:
            text_inputs = tokenize([template.format(noun) for noun in vocabulary])
            text_embed_bucket.append(self.encode_text(text_inputs, normalize=True))
        text_embed = torch.stack(text_embed_bucket).mean(dim=0)
        return text_embed / text_embed.norm(dim=-1, keepdim=True)

    def forward(self):
        class_names = list(CLASSES)
        if class_names[0] == "background":
            class_names = class_names[1:]
        if self.cache_feature:
            if self.dataset_name not in self.cache:
                class_embeds = self.template_encode(class_names)
                self.cache[self.dataset_name] = class_embeds  # expect: GG104
            else:
                class_embeds = self.cache[self.dataset_name]
        else:
            class_embeds = self.template_encode(class_names)
        if self.cat_bg:
            class_embeds = torch.cat([class_embeds, self.bg_embed])
            class_embeds = F.normalize(class_embeds, p=2, dim=-1)
        return self.logit_scale.exp() * class_embeds


class SideAdapterSegmentor(nn.Module):
    def __init__(self, text_encoder, dims=16):
        super(SideAdapterSegmentor, self).__init__()
        self.text_encoder = text_encoder
        self.backbone = nn.Sequential(nn.Conv2d(3, dims, 3, 2, 1), nn.ReLU(), nn.Conv2d(dims, dims, 3, 1, 1))

    def forward(self, img):
        pix = F.normalize(self.backbone(img), dim=1)
        class_embeds = self.text_encoder()
        logits = torch.einsum("bchw,kc->bkhw", pix, class_embeds)
        return F.interpolate(logits, size=img.shape[2:], mode="bilinear", align_corners=False)


def train(model, optimizer, iters=3):
    model.train()
    for it in range(iters):
        img = torch.rand(2, 3, 32, 32)
        gt = torch.randint(0, len(CLASSES), (2, 32, 32))
        seg_logits = model(img)
        losses = {"loss_ce": F.cross_entropy(seg_logits, gt)}
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()  # also: GG104
        optimizer.step()
        print("iter %d  %s" % (it, {k: round(v.item(), 4) for k, v in losses.items()}))


def main():
    torch.manual_seed(0)
    model = SideAdapterSegmentor(CLIPTextEncoder(cache_feature=True))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)
    train(model, optimizer)


if __name__ == "__main__":
    main()
