# corpus: GRU language-model evaluation that carries the hidden state across batches under torch.no_grad() (no graph)
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class GRULM(nn.Module):
    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, h):
        y, h = self.gru(self.emb(x), h)
        return self.out(y), h


def evaluate(model, source, bptt):
    model.eval()
    total, count = 0.0, 0
    hidden = torch.zeros(1, source.size(1), 16)
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, bptt):
            data = source[i:i + bptt]
            target = source[i + 1:i + 1 + bptt]
            data = data[: target.size(0)]
            logits, hidden = model(data, hidden)
            total += F.cross_entropy(logits.view(-1, logits.size(-1)), target.reshape(-1), reduction="sum").item()
            count += target.numel()
    return total / count


model = GRULM(20, 16)
val_data = torch.randint(0, 20, (26, 2))
loss = evaluate(model, val_data, bptt=5)
print(f"val loss {loss:.3f} ppl {math.exp(loss):.1f}")
