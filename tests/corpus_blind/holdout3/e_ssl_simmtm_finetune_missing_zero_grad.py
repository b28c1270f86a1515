# corpus: time-series self-supervised model fine-tuned with a classification head; model_finetune steps both optimizers but never zeroes their gradients, so every batch adds onto the previous ones
# source: https://github.com/thuml/SimMTM/issues/2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class TFC(nn.Module):
    """Tiny masked-time-series encoder: returns (representation h, projection z)."""

    def __init__(self, in_channels=1, seq_len=32, d_model=16):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(in_channels, 8, kernel_size=5, padding=2), nn.ReLU(),
                                  nn.Conv1d(8, 8, kernel_size=3, padding=1), nn.ReLU())
        self.dense = nn.Linear(8 * seq_len, d_model)
        self.projector = nn.Sequential(nn.Linear(d_model, d_model), nn.ReLU(), nn.Linear(d_model, 8))

    def forward(self, x):
        h = self.dense(self.conv(x).flatten(1))
        return h, self.projector(h)


class target_classifier(nn.Module):
    def __init__(self, d_model=16, num_classes=3):
        super().__init__()
        self.logits = nn.Sequential(nn.Linear(d_model, 32), nn.Sigmoid(), nn.Linear(32, num_classes))

    def forward(self, emb):
        return self.logits(emb)


def build_model(lr):
    model = TFC()
    classifier = target_classifier()
    model_optimizer = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.99))
    classifier_optimizer = torch.optim.Adam(classifier.parameters(), lr=lr, betas=(0.9, 0.99))
    model_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(model_optimizer, T_max=5)
    return model, classifier, model_optimizer, classifier_optimizer, model_scheduler


def model_finetune(model, val_dl, model_optimizer, model_scheduler, classifier, classifier_optimizer):
    model.train()
    classifier.train()
    criterion = nn.CrossEntropyLoss()
    total_loss, total_acc = [], []
    for data, labels in val_dl:
        h, z = model(data)
        predictions = classifier(h)
        loss = criterion(predictions, labels)

        acc_bs = labels.eq(predictions.detach().argmax(dim=1)).float().mean()
        total_acc.append(acc_bs)
        total_loss.append(loss.item())

        loss.backward()  # expect: GG201
        model_optimizer.step()
        classifier_optimizer.step()

    model_scheduler.step()
    return torch.tensor(total_loss).mean(), torch.tensor(total_acc).mean()


def model_test(model, test_dl, classifier):
    model.eval()
    classifier.eval()
    preds, trgs = np.array([]), np.array([])
    with torch.no_grad():
        for data, labels in test_dl:
            h, _ = model(data)
            pred = classifier(h).argmax(dim=1)
            preds = np.append(preds, pred.numpy())
            trgs = np.append(trgs, labels.numpy())
    return float((preds == trgs).mean())


def make_loader(n_batches=4, batch_size=8, seq_len=32):
    loader = []
    for _ in range(n_batches):
        labels = torch.randint(0, 3, (batch_size,))
        t = torch.linspace(0, 1, seq_len)
        data = torch.sin(2 * np.pi * (labels.float() + 1).unsqueeze(1) * t) + 0.3 * torch.randn(batch_size, seq_len)
        loader.append((data.unsqueeze(1), labels))
    return loader


if __name__ == "__main__":
    torch.manual_seed(0)
    ft_model, ft_classifier, ft_model_opt, ft_classifier_opt, ft_scheduler = build_model(lr=1e-3)
    valid_dl, test_dl = make_loader(), make_loader(n_batches=2)
    for ep in range(1, 4):
        valid_loss, valid_acc = model_finetune(ft_model, valid_dl, ft_model_opt, ft_scheduler,
                                               ft_classifier, ft_classifier_opt)
        test_acc = model_test(ft_model, test_dl, ft_classifier)
        print(f"Epoch {ep} | finetune loss {valid_loss:.4f} | acc {valid_acc:.3f} | test acc {test_acc:.3f}")
