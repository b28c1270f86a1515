# corpus: Dassl-style prompt-learning trainer (MaPLe/CoOp shape) whose CustomCLIP returns the cross-entropy loss from forward; with more than one device the model is wrapped in DataParallel, whose gather turns the per-replica scalar losses into a vector, and forward_backward calls loss.backward() on it
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/muzairkhattak/multimodal-prompt-learning/issues/37
import torch
import torch.nn as nn
import torch.nn.functional as F


class CPUDataParallel(nn.Module):
    """Mimics nn.DataParallel on CPU: scatter the batch, run each replica, gather along dim 0.
    Like DataParallel, 0-dim outputs are unsqueezed and returned as a vector (one entry per replica)."""

    def __init__(self, module, device_ids):
        super().__init__()
        self.module = module
        self.device_ids = device_ids

    def forward(self, *inputs):
        chunks = zip(*[x.chunk(len(self.device_ids)) for x in inputs])
        outputs = [self.module(*chunk) for chunk in chunks]
        return torch.stack([o.reshape(-1) if o.dim() else o.unsqueeze(0) for o in outputs]).reshape(-1)


class CustomCLIP(nn.Module):
    def __init__(self, classnames, embed_dim=32, n_ctx=4, img_dim=48):
        super().__init__()
        self.image_encoder = nn.Linear(img_dim, embed_dim)      # frozen "CLIP" towers
        self.class_token_emb = nn.Embedding(len(classnames), embed_dim)
        self.text_proj = nn.Linear(embed_dim, embed_dim)
        for p in list(self.image_encoder.parameters()) + list(self.class_token_emb.parameters()) \
                + list(self.text_proj.parameters()):
            p.requires_grad_(False)
        self.ctx = nn.Parameter(0.02 * torch.randn(n_ctx, embed_dim))  # learnable prompt context
        self.logit_scale = nn.Parameter(torch.tensor(4.6), requires_grad=False)

    def forward(self, image, label=None):
        image_features = F.normalize(self.image_encoder(image), dim=-1)
        prompts = self.class_token_emb.weight + self.ctx.mean(0)
        text_features = F.normalize(self.text_proj(prompts), dim=-1)
        logits = self.logit_scale.exp() * image_features @ text_features.t()
        if self.training:
            return F.cross_entropy(logits, label)
        return logits


class TrainerX:
    def __init__(self, classnames, device_count=2, lr=2e-3):
        self.model = CustomCLIP(classnames)
        self.optim = torch.optim.SGD([self.model.ctx], lr=lr)
        if device_count > 1:
            print(f"Multiple devices detected (n={device_count}), use all of them!")
            self.model = CPUDataParallel(self.model, device_ids=list(range(device_count)))

    def parse_batch_train(self, batch):
        return batch["img"], batch["label"]

    def forward_backward(self, batch):
        image, label = self.parse_batch_train(batch)
        loss = self.model(image, label)
        self.optim.zero_grad()
        loss.backward()  # expect: GG109
        self.optim.step()
        return {"loss": loss.item()}

    def run_epoch(self, loader):
        self.model.train()
        summaries = [self.forward_backward(batch) for batch in loader]
        return sum(s["loss"] for s in summaries) / len(summaries)


def build_loader(n_batches=4, batch_size=8, n_classes=5, img_dim=48):
    g = torch.Generator().manual_seed(0)
    return [{"img": torch.randn(batch_size, img_dim, generator=g),
             "label": torch.randint(0, n_classes, (batch_size,), generator=g)} for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    classnames = ["cat", "dog", "car", "ship", "tree"]
    trainer = TrainerX(classnames, device_count=2)
    for epoch in range(2):
        print(f"epoch {epoch}: loss {trainer.run_epoch(build_loader()):.4f}")


if __name__ == "__main__":
    main()
