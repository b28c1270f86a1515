# corpus: BiLSTM sequence tagger for NER builds its token loss with nn.CrossEntropyLoss(reduction='none') and returns the per-token loss vector; the trainer calls loss.backward() on it directly
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/z814081807/DeepNER/issues/19
import argparse
from dataclasses import dataclass

import torch
import torch.nn as nn

TAGS = ["O", "B-DRUG", "I-DRUG", "B-DISEASE", "I-DISEASE"]


@dataclass
class NERConfig:
    vocab_size: int = 50
    embed_dim: int = 16
    hidden: int = 24
    num_tags: int = len(TAGS)
    dropout: float = 0.1
    loss_type: str = "ce"


class BiLSTMTagger(nn.Module):
    def __init__(self, cfg: NERConfig):
        super().__init__()
        self.embedding = nn.Embedding(cfg.vocab_size, cfg.embed_dim, padding_idx=0)
        self.encoder = nn.LSTM(cfg.embed_dim, cfg.hidden, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(cfg.dropout)
        self.classifier = nn.Linear(2 * cfg.hidden, cfg.num_tags)
        self.num_tags = cfg.num_tags

        reduction = "none"
        if cfg.loss_type == "ce":
            self.criterion = nn.CrossEntropyLoss(reduction=reduction)
        else:
            raise ValueError(cfg.loss_type)

    def forward(self, token_ids, attention_masks, labels=None):
        seq_out, _ = self.encoder(self.embedding(token_ids))
        emissions = self.classifier(self.dropout(seq_out))
        out = (emissions,)
        if labels is not None:
            active_loss = attention_masks.view(-1) == 1
            active_logits = emissions.view(-1, self.num_tags)[active_loss]
            active_labels = labels.view(-1)[active_loss]
            loss = self.criterion(active_logits, active_labels)
            out = (loss,) + out
        return out


def make_batches(cfg, n_batches=3, batch_size=4, max_len=12):
    batches = []
    for _ in range(n_batches):
        lengths = torch.randint(5, max_len + 1, (batch_size,))
        mask = (torch.arange(max_len).unsqueeze(0) < lengths.unsqueeze(1)).long()
        token_ids = torch.randint(1, cfg.vocab_size, (batch_size, max_len)) * mask
        labels = torch.randint(0, cfg.num_tags, (batch_size, max_len)) * mask
        batches.append({"token_ids": token_ids, "attention_masks": mask, "labels": labels})
    return batches


def train(model, batches, optimizer, epochs, max_grad_norm):
    model.train()
    for epoch in range(epochs):
        for step, batch in enumerate(batches):
            loss = model(**batch)[0]
            model.zero_grad()
            loss.backward()  # expect: GG109
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            optimizer.step()
            print(f"epoch {epoch} step {step}: loss {loss.mean().item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--max-grad-norm", type=float, default=1.0)
    args = parser.parse_args([])

    torch.manual_seed(0)
    cfg = NERConfig()
    model = BiLSTMTagger(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    train(model, make_batches(cfg), optimizer, args.epochs, args.max_grad_norm)


if __name__ == "__main__":
    main()
