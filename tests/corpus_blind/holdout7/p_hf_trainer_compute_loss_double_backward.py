# corpus: Hugging Face-style Trainer whose train_minibatch calls self.accelerator.backward(loss), while the user's compute_loss override already ran loss.backward() on the same loss, so the accelerator's backward walks a freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/huggingface/trl/issues/130
import argparse
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class Accelerator:
    """Minimal stand-in for accelerate.Accelerator on one CPU process."""

    def __init__(self, gradient_accumulation_steps=1):
        self.gradient_accumulation_steps = gradient_accumulation_steps

    def backward(self, loss):
        loss = loss / self.gradient_accumulation_steps
        loss.backward()  # expect: GG101


@dataclass
class TrainingArguments:
    learning_rate: float = 1e-3
    num_train_epochs: int = 2
    max_grad_norm: float = 1.0


class TextClassifier(nn.Module):
    def __init__(self, vocab_size=100, dim=16, num_labels=3):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, dim)
        self.pre_classifier = nn.Linear(dim, dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, labels=None):
        h = torch.tanh(self.pre_classifier(self.embed(input_ids)))
        logits = self.classifier(h)
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


class Trainer:
    def __init__(self, model, args, train_dataset):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.accelerator = Accelerator()
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)

    def compute_loss(self, model, inputs):
        return model(**inputs)["loss"]

    def train_minibatch(self, inputs):
        self.model.train()
        loss = self.compute_loss(self.model, inputs)
        self.optimizer.zero_grad()
        self.accelerator.backward(loss)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
        self.optimizer.step()
        return loss.detach()

    def train(self):
        for epoch in range(self.args.num_train_epochs):
            for inputs in self.train_dataset:
                self.train_minibatch(inputs)


class GradLoggingTrainer(Trainer):
    """User subclass: logs the gradient norm of every step."""

    def compute_loss(self, model, inputs):
        loss = super().compute_loss(model, inputs)
        loss.backward()
        total = sum(p.grad.norm() ** 2 for p in model.parameters() if p.grad is not None)
        self.last_grad_norm = float(total ** 0.5)
        return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    cli = parser.parse_args([])
    torch.manual_seed(0)
    dataset = [{"input_ids": torch.randint(0, 100, (4, 7)), "labels": torch.randint(0, 3, (4,))}
               for _ in range(3)]
    trainer = GradLoggingTrainer(TextClassifier(), TrainingArguments(learning_rate=cli.lr), dataset)
    trainer.train()


if __name__ == "__main__":
    main()
