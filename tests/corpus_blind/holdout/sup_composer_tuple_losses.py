# corpus: trainer's microbatch step backpropagates each loss of a model-returned tuple separately; both share one forward
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/mosaicml/composer/pull/1240
import torch
import torch.nn as nn
import torch.nn.functional as F


class ComposerClassifier(nn.Module):
    """Classifier with an auxiliary reconstruction objective on the shared features."""

    def __init__(self, d_in=12, d_feat=20, num_classes=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d_feat), nn.Tanh())
        self.classifier = nn.Linear(d_feat, num_classes)
        self.decoder = nn.Linear(d_feat, d_in)

    def forward(self, batch):
        x, _ = batch
        feats = self.encoder(x)  # also: GG102
        return self.classifier(feats), self.decoder(feats)

    def loss(self, outputs, batch):
        x, y = batch
        logits, recon = outputs
        return F.cross_entropy(logits, y), 0.1 * F.mse_loss(recon, x)


class Trainer:
    def __init__(self, model, lr=1e-2, grad_accum=2):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.grad_accum = grad_accum
        self.total_loss = 0.0

    def _train_microbatch(self, microbatch, current_batch_size):
        microbatch_num_samples = microbatch[0].shape[0]
        outputs = self.model(microbatch)
        loss = self.model.loss(outputs, microbatch)
        if isinstance(loss, torch.Tensor):
            loss = (loss,)
        for l in loss:
            scaled = l * (microbatch_num_samples / current_batch_size)
            self.total_loss += scaled.item()
            scaled.backward()  # expect: GG102

    def _train_batch(self, batch):
        x, y = batch
        current_batch_size = x.shape[0]
        self.optimizer.zero_grad()
        for mx, my in zip(x.chunk(self.grad_accum), y.chunk(self.grad_accum)):
            self._train_microbatch((mx, my), current_batch_size)
        self.optimizer.step()

    def fit(self, dataloader, epochs=1):
        self.model.train()
        for _ in range(epochs):
            for batch in dataloader:
                self._train_batch(batch)


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(8, 12), torch.randint(0, 4, (8,))) for _ in range(3)]
    Trainer(ComposerClassifier()).fit(loader)


if __name__ == "__main__":
    main()
