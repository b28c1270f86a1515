# corpus: Trainer keeps tr_loss as a tensor and adds each step's loss tensor into it, keeping every step's graph alive
# source: https://github.com/huggingface/transformers/pull/6999
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class TrainingArguments:
    learning_rate: float = 5e-3
    num_train_epochs: int = 2
    logging_steps: int = 4
    max_grad_norm: float = 1.0


class TinyClassifier(nn.Module):
    def __init__(self, vocab=50, dim=16, num_labels=3):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim)
        self.head = nn.Linear(dim, num_labels)
        self.loss_fct = nn.CrossEntropyLoss()

    def forward(self, input_ids, labels=None):
        logits = self.head(self.emb(input_ids))
        loss = self.loss_fct(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


class Trainer:
    def __init__(self, model, args, train_dataset):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.global_step = 0
        self.log_history = []

    def training_step(self, model, inputs):
        model.train()
        outputs = model(**inputs)
        loss = outputs["loss"]
        loss.backward()
        return loss

    def log(self, logs):
        logs["step"] = self.global_step
        self.log_history.append(logs)

    def train(self):
        tr_loss = torch.tensor(0.0)
        logging_loss_scalar = 0.0
        self.model.zero_grad()
        for epoch in range(self.args.num_train_epochs):
            for inputs in self.train_dataset:
                tr_loss += self.training_step(self.model, inputs)  # expect: GG301
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                self.optimizer.step()
                self.model.zero_grad()
                self.global_step += 1

                if self.global_step % self.args.logging_steps == 0:
                    tr_loss_scalar = tr_loss.item()
                    self.log({"loss": (tr_loss_scalar - logging_loss_scalar) / self.args.logging_steps})
                    logging_loss_scalar = tr_loss_scalar
        return self.global_step, tr_loss / self.global_step


def main():
    torch.manual_seed(0)
    dataset = [
        {"input_ids": torch.randint(0, 50, (4, 6)), "labels": torch.randint(0, 3, (4,))}
        for _ in range(8)
    ]
    trainer = Trainer(TinyClassifier(), TrainingArguments(), dataset)
    global_step, avg_loss = trainer.train()
    print(global_step, trainer.log_history[-1])
    return avg_loss


if __name__ == "__main__":
    avg_loss = main()
    # ground truth: the running tr_loss is a graph node linking all 16 step losses
    assert avg_loss.requires_grad
    assert avg_loss.grad_fn is not None
