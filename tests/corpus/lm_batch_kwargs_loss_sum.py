# corpus: a causal-LM fine-tuning loop calls model(**batch), reads outputs.loss from a dataclass record, and keeps a running loss_sum += loss for logging, holding every step's graph until the epoch ends
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass
from typing import Optional


@dataclass
class LMOutput:
    loss: Optional[torch.Tensor]
    logits: torch.Tensor


class TinyLM(nn.Module):
    def __init__(self, vocab=16, width=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, input_ids, labels=None):
        logits = self.head(self.embed(input_ids))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return LMOutput(loss=loss, logits=logits)


torch.manual_seed(0)
model = TinyLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(2):
    loss_sum = torch.tensor(0.0)
    for step in range(3):
        ids = torch.randint(0, 16, (2, 6))
        batch = {"input_ids": ids, "labels": ids.clone()}
        outputs = model(**batch)
        loss = outputs.loss
        loss_sum += loss  # expect: GG301
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    print(epoch, loss_sum.item() / 3)
