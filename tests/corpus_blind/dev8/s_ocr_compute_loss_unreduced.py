# corpus: text-recognition model (MASTER/SAR-style) whose compute_loss masks the per-step cross-entropy and returns ce_loss.unsqueeze(1), one loss per word; the training loop calls backward on it directly
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/mindee/doctr/pull/379
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class RecognitionModel(nn.Module):
    def __init__(self, vocab_size=20, max_length=6, d_model=32):
        super().__init__()
        self.vocab_size = vocab_size
        self.max_length = max_length
        self.feat_extractor = nn.Sequential(nn.Conv2d(3, d_model, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((1, max_length)))
        self.decoder = nn.GRU(d_model, d_model, batch_first=True)
        self.linear = nn.Linear(d_model, vocab_size + 1)

    def compute_loss(self, model_output, gt, seq_len):
        # Input length : number of timesteps
        input_len = model_output.shape[1]
        # Add one for additional <eos> token
        seq_len = seq_len + 1
        cce = F.cross_entropy(model_output.permute(0, 2, 1), gt, reduction="none")
        mask_2d = torch.arange(input_len)[None, :] >= seq_len[:, None]
        cce = cce.masked_fill(mask_2d, 0)
        ce_loss = cce.sum(1) / seq_len.to(dtype=torch.float32)
        return ce_loss.unsqueeze(1)

    def forward(self, x, target=None, seq_len=None, return_model_output=False):
        feats = self.feat_extractor(x).squeeze(2).permute(0, 2, 1)
        hidden, _ = self.decoder(feats)
        logits = self.linear(hidden)
        out = {}
        if return_model_output:
            out["out_map"] = logits
        if target is not None:
            out["loss"] = self.compute_loss(logits, target, seq_len)
        return out


def encode_words(batch_size, max_length, vocab_size):
    seq_len = torch.randint(2, max_length, (batch_size,))
    gt = torch.randint(0, vocab_size, (batch_size, max_length))
    for i, n in enumerate(seq_len.tolist()):
        gt[i, n] = vocab_size  # <eos>
    return gt, seq_len


def fit_one_epoch(model, optimizer, scheduler, num_batches):
    model.train()
    for _ in range(num_batches):
        images = torch.randn(4, 3, 8, 24)
        gt, seq_len = encode_words(4, model.max_length, model.vocab_size)
        train_loss = model(images, gt, seq_len)["loss"]
        optimizer.zero_grad()
        train_loss.backward()  # expect: GG109
        optimizer.step()
        scheduler.step()


def main():
    parser = argparse.ArgumentParser(description="text-recognition training")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = RecognitionModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=10)
    for epoch in range(args.epochs):
        fit_one_epoch(model, optimizer, scheduler, num_batches=3)


if __name__ == "__main__":
    main()
