# corpus: open_clip-style train_one_epoch with gradient accumulation for a contrastive CLIP loss: each micro-batch's features are first cached under torch.no_grad(), then every micro-batch is re-encoded with grad, spliced between the cached (graph-free) features of the others, backpropagated, and one optimizer step runs per accum_freq micro-batches; correct
# source: https://github.com/mlfoundations/open_clip/issues/761
from contextlib import nullcontext

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCLIP(nn.Module):
    def __init__(self, img_dim=48, vocab=100, embed_dim=32):
        super().__init__()
        self.visual = nn.Sequential(nn.Linear(img_dim, 64), nn.GELU(), nn.Linear(64, embed_dim))
        self.token_embedding = nn.EmbeddingBag(vocab, 64)
        self.text_proj = nn.Linear(64, embed_dim)
        self.logit_scale = nn.Parameter(torch.tensor(2.659))

    def forward(self, images, texts):
        image_features = F.normalize(self.visual(images), dim=-1)
        text_features = F.normalize(self.text_proj(self.token_embedding(texts)), dim=-1)
        return {"image_features": image_features, "text_features": text_features,
                "logit_scale": self.logit_scale.exp()}


class ClipLoss(nn.Module):
    def forward(self, image_features, text_features, logit_scale, output_dict=False):
        logits_per_image = logit_scale * image_features @ text_features.T
        labels = torch.arange(logits_per_image.shape[0])
        total = (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_image.T, labels)) / 2
        return {"contrastive_loss": total} if output_dict else total


def backward(total_loss, scaler):
    if scaler is not None:
        scaler.scale(total_loss).backward()
    else:
        total_loss.backward()


def train_one_epoch(model, data, loss, optimizer, scaler=None, accum_freq=2):
    model.train()
    autocast = nullcontext
    accum_images, accum_texts, accum_features = [], [], {}
    losses_m = []
    for i, (images, texts) in enumerate(data):
        if accum_freq == 1:
            optimizer.zero_grad()
            with autocast():
                losses = loss(**model(images, texts), output_dict=True)
                total_loss = sum(losses.values())
            backward(total_loss, scaler)
        else:
            # First, cache the features without any gradient tracking.
            with torch.no_grad():
                with autocast():
                    model_out = model(images, texts)
                    model_out.pop("logit_scale")
                    for key, val in model_out.items():
                        accum_features.setdefault(key, []).append(val)
                accum_images.append(images)
                accum_texts.append(texts)
            if ((i + 1) % accum_freq) > 0:
                continue  # FIXME this makes data time logging unreliable when accumulating

            # Now, re-do the forward pass for the previous batches, with grad, and accumulate.
            optimizer.zero_grad()
            for j in range(accum_freq):
                images, texts = accum_images[j], accum_texts[j]
                with autocast():
                    model_out = model(images, texts)
                    logit_scale = model_out.pop("logit_scale")
                    inputs = {}
                    for key, val in accum_features.items():
                        accumulated = accum_features[key]
                        inputs[key] = torch.cat(accumulated[:j] + [model_out[key]] + accumulated[j + 1:])
                    losses = loss(**inputs, logit_scale=logit_scale, output_dict=True)
                    del inputs
                    total_loss = sum(losses.values())
                backward(total_loss, scaler)
        optimizer.step()
        with torch.no_grad():
            model.logit_scale.clamp_(0, 4.6052)
        accum_images, accum_texts, accum_features = [], [], {}
        losses_m.append(total_loss.item())
    return sum(losses_m) / len(losses_m)


def make_data(n_batches=6, batch_size=8, img_dim=48, vocab=100, seq=6):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(batch_size, img_dim, generator=g), torch.randint(0, vocab, (batch_size, seq), generator=g))
            for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    model = TinyCLIP()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(2):
        print(f"epoch {epoch}: loss {train_one_epoch(model, make_data(), ClipLoss(), optimizer):.4f}")


if __name__ == "__main__":
    main()
