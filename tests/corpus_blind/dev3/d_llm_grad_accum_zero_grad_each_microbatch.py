# corpus: transformer fine-tuning loop with gradient_accumulation_steps that calls optimizer.zero_grad() right before every backward, so each step() only sees the last micro-batch's gradient
# source: https://github.com/ZiqiaoPeng/DualTalk/issues/9
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyDecoderLM(nn.Module):
    def __init__(self, vocab_size=30, d_model=16, nhead=2, num_layers=1, max_len=16):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Parameter(torch.zeros(1, max_len, d_model))
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, num_layers)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, input_ids):
        seq_len = input_ids.size(1)
        h = self.tok(input_ids) + self.pos[:, :seq_len]
        causal = nn.Transformer.generate_square_subsequent_mask(seq_len)
        return self.head(self.blocks(h, mask=causal, is_causal=True))


def make_loader(n_batches=8, batch_size=2, seq_len=9, vocab_size=30):
    return [torch.randint(0, vocab_size, (batch_size, seq_len)) for _ in range(n_batches)]


def train(args, model, train_loader, optimizer):
    loss_log = []
    for e in range(args.max_epoch):
        model.train()
        for i, tokens in enumerate(train_loader):
            inputs, labels = tokens[:, :-1], tokens[:, 1:]
            logits = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
            optimizer.zero_grad()  # expect: GG201
            loss.backward()
            loss_log.append(loss.item())
            if i % args.gradient_accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        print(f"epoch {e} mean loss {sum(loss_log[-len(train_loader):]) / len(train_loader):.4f}")
    return loss_log


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    total = 0.0
    for tokens in loader:
        logits = model(tokens[:, :-1])
        total += F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1)).item()
    return total / len(loader)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max_epoch", type=int, default=1)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=4)
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    model = TinyDecoderLM()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    train(args, model, make_loader(), optimizer)
    print("eval loss", evaluate(model, make_loader(n_batches=2)))


if __name__ == "__main__":
    main()
