# corpus: Trainer uses CrossEntropyLoss(reduction='none') to apply per-sample weights and calls backward on the weighted vector
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://blog.csdn.net/cyj972628089/article/details/122732509
import torch
import torch.nn as nn


class TextCNN(nn.Module):
    def __init__(self, vocab=100, dim=16, n_classes=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim, 12, kernel_size=3, padding=1)
        self.fc = nn.Linear(12, n_classes)

    def forward(self, tokens):
        h = self.embedding(tokens).transpose(1, 2)
        h = torch.relu(self.conv(h)).max(dim=2).values
        return self.fc(h)


class Trainer:
    def __init__(self, model, class_weights, lr=1e-3):
        self.model = model
        self.class_weights = class_weights
        self.criterion = nn.CrossEntropyLoss(reduction="none")
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def sample_weights(self, labels, confidence):
        return self.class_weights[labels] * confidence

    def train_step(self, tokens, labels, confidence):
        self.model.train()
        logits = self.model(tokens)
        loss = self.criterion(logits, labels) * self.sample_weights(labels, confidence)  # also: GG109
        self.optimizer.zero_grad()
        loss.backward()  # expect: GG109
        self.optimizer.step()
        return loss.mean().item()

    def train(self, loader, epochs=1):
        for epoch in range(epochs):
            total = 0.0
            for tokens, labels, confidence in loader:
                total += self.train_step(tokens, labels, confidence)
            print(f"epoch {epoch}: {total / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    loader = [(torch.randint(0, 100, (6, 10)), torch.randint(0, 3, (6,)), torch.rand(6)) for _ in range(3)]
    trainer = Trainer(TextCNN(), class_weights=torch.tensor([1.0, 2.5, 4.0]))
    trainer.train(loader)


if __name__ == "__main__":
    main()
