# corpus: correct look-alike - train_model() accumulates running_loss += loss.item() * inputs.size(0), and evaluation runs under torch.no_grad() before converting predictions with .numpy()
# source: https://androidkt.com/how-to-calculate-running-loss-using-loss-item-in-pytorch/
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
np.random.seed(0)

history = {"train_loss": [], "val_acc": []}


class SmallCNN(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(4 * 4 * 4, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def make_loader(n, batch_size=8):
    X = torch.randn(n, 1, 8, 8)
    y = torch.randint(0, 3, (n,))
    return [(X[i:i + batch_size], y[i:i + batch_size]) for i in range(0, n, batch_size)]


def evaluate(model, loader):
    model.eval()
    all_preds, all_labels = [], []
    with torch.no_grad():
        for inputs, labels in loader:
            outputs = model(inputs)
            all_preds.append(outputs.argmax(1).numpy())
            all_labels.append(labels.numpy())
    return float(np.mean(np.concatenate(all_preds) == np.concatenate(all_labels)))


def train_model(model, criterion, optimizer, scheduler, train_loader, val_loader, num_epochs=3):
    for epoch in range(num_epochs):
        model.train()
        running_loss = 0.0
        n_seen = 0
        for inputs, labels in train_loader:
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item() * inputs.size(0)
            n_seen += inputs.size(0)
        scheduler.step()
        history["train_loss"].append(running_loss / n_seen)
        history["val_acc"].append(evaluate(model, val_loader))
        print(f"Epoch {epoch}: loss {history['train_loss'][-1]:.4f} val acc {history['val_acc'][-1]:.3f}")
    return model


def main():
    model = SmallCNN()
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    train_model(model, criterion, optimizer, scheduler, make_loader(32), make_loader(16))


if __name__ == "__main__":
    main()
