# corpus: custom Trainer whose training_step backpropagates the loss and an adversarial-regularizer callback backpropagates the same loss again without retain_graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/allenai/allennlp/pull/5249
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassifier(nn.Module):
    def __init__(self, vocab=50, dim=16, n_classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, tokens):
        emb = self.embed(tokens)
        out, _ = self.encoder(emb)
        return {"logits": self.head(out[:, -1]), "embeddings": emb}


class TrainerCallback:
    def on_backward(self, trainer, batch_outputs):
        pass


class GradNormLoggerCallback(TrainerCallback):
    """Re-runs backward to log the embedding gradient norm (adversarial-training prep)."""

    def __init__(self):
        self.norms = []

    def on_backward(self, trainer, batch_outputs):
        trainer.optimizer.zero_grad()
        batch_outputs["loss"].backward()  # also: GG101
        self.norms.append(trainer.model.embed.weight.grad.norm().item())


class Trainer:
    def __init__(self, model, optimizer, callbacks):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = callbacks

    def training_step(self, tokens, labels):
        outputs = self.model(tokens)
        outputs["loss"] = F.cross_entropy(outputs["logits"], labels)
        self.optimizer.zero_grad()
        outputs["loss"].backward()  # expect: GG101
        for cb in self.callbacks:
            cb.on_backward(self, outputs)
        self.optimizer.step()
        return outputs["loss"].item()

    def fit(self, batches):
        history = []
        for tokens, labels in batches:
            history.append(self.training_step(tokens, labels))
        return history


def make_batches(n=4, bsz=8, seq=6):
    return [(torch.randint(0, 50, (bsz, seq)), torch.randint(0, 3, (bsz,))) for _ in range(n)]


def main():
    torch.manual_seed(0)
    model = TextClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    trainer = Trainer(model, optimizer, [GradNormLoggerCallback()])
    print(trainer.fit(make_batches()))


if __name__ == "__main__":
    main()
