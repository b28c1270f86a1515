# corpus: multi-task trainer (shared encoder, segmentation + depth heads returned as a dict) calls backward() on each task loss in turn; the second backward re-enters the shared encoder graph freed by the first
# raises: RuntimeError: Trying to backward through the graph a second time
# source: http://www.dtcms.com/a/209687.html
import torch
import torch.nn as nn
import torch.nn.functional as F


class SharedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
        )

    def forward(self, x):
        return self.block(x)


class MultiTaskNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.encoder = SharedEncoder()
        self.heads = nn.ModuleDict({
            "seg": nn.Conv2d(16, n_classes, 1),
            "depth": nn.Conv2d(16, 1, 1),
        })

    def forward(self, x):
        feat = self.encoder(x)
        return {name: head(feat) for name, head in self.heads.items()}


class MultiTaskTrainer:
    def __init__(self, model, task_weights):
        self.model = model
        self.task_weights = task_weights
        self.criteria = {"seg": nn.CrossEntropyLoss(), "depth": nn.L1Loss()}
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def compute_losses(self, outputs, targets):
        return {name: self.task_weights[name] * self.criteria[name](outputs[name], targets[name])
                for name in outputs}

    def training_step(self, batch):
        images, targets = batch
        self.optimizer.zero_grad()
        losses = self.compute_losses(self.model(images), targets)
        for name, loss in losses.items():
            loss.backward()  # expect: GG102
        self.optimizer.step()
        return {name: loss.item() for name, loss in losses.items()}

    def fit(self, loader, epochs=2):
        self.model.train()
        for epoch in range(epochs):
            for batch in loader:
                logs = self.training_step(batch)
            print(f"epoch {epoch}: {logs}")


def make_loader(n=3):
    batches = []
    for _ in range(n):
        img = torch.randn(4, 3, 16, 16)
        targets = {"seg": torch.randint(0, 4, (4, 16, 16)), "depth": torch.rand(4, 1, 16, 16)}
        batches.append((img, targets))
    return batches


def main():
    torch.manual_seed(0)
    trainer = MultiTaskTrainer(MultiTaskNet(), {"seg": 1.0, "depth": 0.5})
    trainer.fit(make_loader())


if __name__ == "__main__":
    main()
