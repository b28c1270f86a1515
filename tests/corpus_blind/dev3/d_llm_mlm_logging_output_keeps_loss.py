# corpus: fairseq-style masked LM criterion puts the graph-carrying loss tensor into its logging_output dict; the trainer's running meters sum those dicts across updates, chaining every step's graph into one ever-growing history
# source: https://github.com/facebookresearch/fairseq/issues/2255
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n  # also: GG301
        self.count += n

    @property
    def avg(self):
        return float(self.sum) / max(self.count, 1)


class TinyMaskedLM(nn.Module):
    def __init__(self, vocab_size=24, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.lm_head = nn.Linear(dim, vocab_size)

    def forward(self, src_tokens, masked_tokens=None):
        x = self.encoder(self.embed(src_tokens))
        if masked_tokens is not None:
            x = x[masked_tokens]
        return self.lm_head(x)


class MaskedLmLoss:
    def __init__(self, padding_idx=0):
        self.padding_idx = padding_idx

    def __call__(self, model, sample):
        masked_tokens = sample["target"].ne(self.padding_idx)
        sample_size = int(masked_tokens.sum())
        logits = model(sample["net_input"]["src_tokens"], masked_tokens=masked_tokens)
        targets = sample["target"][masked_tokens]
        loss = F.nll_loss(F.log_softmax(logits, dim=-1), targets, reduction="sum")
        logging_output = {"loss": loss, "ntokens": sample["ntokens"], "sample_size": sample_size}  # expect: GG301
        return loss, sample_size, logging_output

    @staticmethod
    def reduce_metrics(logging_outputs, meters):
        loss_sum = sum(log.get("loss", 0) for log in logging_outputs)
        sample_size = sum(log.get("sample_size", 0) for log in logging_outputs)
        meters["loss"].update(loss_sum / sample_size / math.log(2), sample_size)


class Trainer:
    def __init__(self, model, criterion, lr=1e-3):
        self.model, self.criterion = model, criterion
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.meters = {"loss": AverageMeter()}
        self.num_updates = 0

    def train_step(self, samples):
        self.model.train()
        self.optimizer.zero_grad()
        logging_outputs = []
        for sample in samples:
            loss, sample_size, logging_output = self.criterion(self.model, sample)
            loss.backward()
            logging_outputs.append(logging_output)
        self.optimizer.step()
        self.num_updates += 1
        self.criterion.reduce_metrics(logging_outputs, self.meters)
        return logging_outputs


def make_sample(bsz=4, seq_len=8, vocab_size=24, mask_idx=1):
    tokens = torch.randint(2, vocab_size, (bsz, seq_len))
    mask = torch.rand(bsz, seq_len) < 0.3
    mask[:, 0] = True
    src = tokens.masked_fill(mask, mask_idx)
    target = tokens.masked_fill(~mask, 0)
    return {"net_input": {"src_tokens": src}, "target": target, "ntokens": int(mask.sum())}


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(TinyMaskedLM(), MaskedLmLoss(padding_idx=0))
    for update in range(6):
        trainer.train_step([make_sample(), make_sample()])
        print(f"update {trainer.num_updates} loss(bits) {trainer.meters['loss'].avg:.4f}")
