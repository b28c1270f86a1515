# corpus: Hugging Face-style extractive-QA fine-tuning loop logs `train_loss += output.loss`, so the running sum keeps every step's graph (and its activations) alive until the next logging reset
# source: https://github.com/pai4451/ML2021/issues/2
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class QuestionAnsweringModelOutput:
    loss: Optional[torch.Tensor]
    start_logits: torch.Tensor
    end_logits: torch.Tensor


class TinyBertForQuestionAnswering(nn.Module):
    def __init__(self, vocab_size=30, hidden=16, max_len=12):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.position_embeddings = nn.Embedding(max_len, hidden)
        self.encoder = nn.TransformerEncoderLayer(hidden, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.qa_outputs = nn.Linear(hidden, 2)

    def forward(self, input_ids, token_type_ids, attention_mask, start_positions=None, end_positions=None):
        pos = torch.arange(input_ids.size(1)).unsqueeze(0)
        h = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids) + self.position_embeddings(pos)
        h = self.encoder(h, src_key_padding_mask=attention_mask == 0)
        start_logits, end_logits = self.qa_outputs(h).unbind(dim=-1)
        loss = None
        if start_positions is not None:
            loss = (F.cross_entropy(start_logits, start_positions) + F.cross_entropy(end_logits, end_positions)) / 2
        return QuestionAnsweringModelOutput(loss, start_logits, end_logits)


def make_train_loader(n_batches=6, batch=4, seq=12, vocab=30):
    loader = []
    for _ in range(n_batches):
        input_ids = torch.randint(1, vocab, (batch, seq))
        token_type_ids = torch.cat([torch.zeros(batch, 5, dtype=torch.long), torch.ones(batch, seq - 5, dtype=torch.long)], 1)
        attention_mask = torch.ones(batch, seq, dtype=torch.long)
        start = torch.randint(5, seq - 2, (batch,))
        end = start + torch.randint(0, 2, (batch,))
        loader.append((input_ids, token_type_ids, attention_mask, start, end))
    return loader


def main():
    torch.manual_seed(0)
    model = TinyBertForQuestionAnswering()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    train_loader = make_train_loader()
    num_epoch = 2
    logging_step = 3
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.1, total_iters=num_epoch * len(train_loader))
    model.train()
    for epoch in range(num_epoch):
        step = 1
        train_loss = train_acc = 0
        for data in train_loader:
            output = model(input_ids=data[0], token_type_ids=data[1], attention_mask=data[2],
                           start_positions=data[3], end_positions=data[4])
            start_index = torch.argmax(output.start_logits, dim=1)
            end_index = torch.argmax(output.end_logits, dim=1)
            # Prediction is correct only if both start_index and end_index are correct
            train_acc += ((start_index == data[3]) & (end_index == data[4])).float().mean()
            train_loss += output.loss  # expect: GG301
            output.loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            step += 1
            if step % logging_step == 0:
                print(f"Epoch {epoch + 1} | Step {step} | loss = {train_loss.item() / logging_step:.3f}, "
                      f"acc = {train_acc / logging_step:.3f}")
                train_loss = train_acc = 0


if __name__ == "__main__":
    main()
