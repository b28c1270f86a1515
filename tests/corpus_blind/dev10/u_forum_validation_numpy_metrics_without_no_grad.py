# corpus: MLP classifier whose validation function computes accuracy/F1 with numpy on the raw model output, without torch.no_grad() or detach()
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://stackoverflow.com/questions/63582590/why-do-we-call-detach-before-calling-numpy-on-a-pytorch-tensor
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)

train_losses = []
val_accs = []


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def f1_macro(y_true, y_pred, n_classes=3):
    scores = []
    for c in range(n_classes):
        tp = np.sum((y_pred == c) & (y_true == c))
        fp = np.sum((y_pred == c) & (y_true != c))
        fn = np.sum((y_pred != c) & (y_true == c))
        denom = 2 * tp + fp + fn
        scores.append(2 * tp / denom if denom > 0 else 0.0)
    return float(np.mean(scores))


def validate(model, X_val, y_val):
    model.eval()
    outputs = model(X_val)
    probs = F.softmax(outputs, dim=1)
    preds = np.argmax(probs.numpy(), axis=1)  # expect: GG110
    acc = np.mean(preds == y_val.numpy())
    return acc, f1_macro(y_val.numpy(), preds)


def train(model, X, y, X_val, y_val, epochs=3):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        for i in range(0, len(X), 16):
            optimizer.zero_grad()
            loss = criterion(model(X[i:i + 16]), y[i:i + 16])
            loss.backward()
            optimizer.step()
            train_losses.append(loss.item())
        acc, f1 = validate(model, X_val, y_val)
        val_accs.append(acc)
        print("epoch", epoch, "val acc", acc, "f1", f1)


def main():
    X = torch.randn(64, 10)
    y = torch.randint(0, 3, (64,))
    X_val = torch.randn(20, 10)
    y_val = torch.randint(0, 3, (20,))
    model = Net()
    train(model, X, y, X_val, y_val)


if __name__ == "__main__":
    main()
