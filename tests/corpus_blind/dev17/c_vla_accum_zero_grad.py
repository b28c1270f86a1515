# corpus: VLA fine-tuning trainer with gradient_accumulation_steps > 1 clears the gradients at the start of every micro-batch while the optimizer steps only every k-th micro-batch, so each update uses the last micro-batch alone (runs clean, trains on a k-times smaller batch).
# source: https://github.com/starVLA/starVLA/issues/395
import torch
import torch.nn as nn
import torch.nn.functional as F


class QwenVLBackbone(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.vision_proj = nn.Linear(12, dim)
        self.block = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))

    def forward(self, input_ids, pixel_feats):
        h = torch.cat([self.vision_proj(pixel_feats), self.embed(input_ids)], dim=1)
        return h + self.block(h)


class ActionHead(nn.Module):
    def __init__(self, dim=16, action_dim=7, chunk=4):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, action_dim * chunk))
        self.action_dim = action_dim
        self.chunk = chunk

    def forward(self, h):
        return self.mlp(h[:, -1]).view(-1, self.chunk, self.action_dim)


class StarVLA(nn.Module):
    def __init__(self):
        super().__init__()
        self.qwen_vl_interface = QwenVLBackbone()
        self.action_model = ActionHead()

    def forward(self, input_ids, pixel_feats, actions):
        h = self.qwen_vl_interface(input_ids, pixel_feats)
        pred = self.action_model(h)
        return {"action_loss": F.mse_loss(pred, actions)}


def make_batches(n, bs=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [{
        "input_ids": torch.randint(0, 32, (bs, 6), generator=g),
        "pixel_feats": torch.randn(bs, 3, 12, generator=g),
        "actions": torch.randn(bs, 4, 7, generator=g),
    } for _ in range(n)]


class VLATrainer:
    def __init__(self, model, dataloader, gradient_accumulation_steps=4, max_grad_norm=1.0, lr=1e-3):
        self.model = model
        self.dataloader = dataloader
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.max_grad_norm = max_grad_norm
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: 1.0)
        self.completed_steps = 0

    def _train_step(self, batch):
        output_dict = self.model(**batch)
        action_loss = output_dict["action_loss"]
        (action_loss / self.gradient_accumulation_steps).backward()
        return action_loss.item()

    def train(self):
        self.model.train()
        for micro_step, batch in enumerate(self.dataloader):
            self.optimizer.zero_grad()  # expect: GG201
            loss = self._train_step(batch)
            if (micro_step + 1) % self.gradient_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)
                self.optimizer.step()  # also: GG201
                self.lr_scheduler.step()
                self.completed_steps += 1
                print("step", self.completed_steps, "loss", round(loss, 4))


def main():
    torch.manual_seed(0)
    model = StarVLA()
    trainer = VLATrainer(model, make_batches(8))
    trainer.train()


if __name__ == "__main__":
    main()
