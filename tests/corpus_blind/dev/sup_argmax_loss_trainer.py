# corpus: classifier trainer feeds argmax'ed hard predictions (cast to float) to the loss, so the loss has no grad_fn
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://php.bkmy88.com/faq/1835025.html
import torch
import torch.nn as nn


class BlobClassifier(nn.Module):
    def __init__(self, in_features=2, out_features=4, hidden=8):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, out_features)
        )

    def forward(self, x):
        return self.layers(x)


def accuracy(y_true, y_pred):
    correct = torch.eq(y_true, y_pred).sum().item()
    return correct / len(y_pred) * 100


class MultiClassTrainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.loss_fn = nn.MSELoss()
        self.optimiser = torch.optim.SGD(model.parameters(), lr=lr)
        self.history = {"loss": [], "acc": []}

    def predict(self, logits):
        return torch.softmax(logits, dim=1).argmax(dim=1).type(torch.float32)  # expect: GG106

    def train_step(self, X_train, y_train):
        self.model.train()
        train_logits = self.model(X_train)
        train_preds_probs = self.predict(train_logits)
        loss = self.loss_fn(train_preds_probs, y_train.type(torch.float32))
        train_accu = accuracy(y_train, train_preds_probs)
        self.optimiser.zero_grad()
        loss.backward()  # also: GG106
        self.optimiser.step()
        return loss.item(), train_accu

    def fit(self, X_train, y_train, epochs=5):
        for epoch in range(epochs):
            loss, acc = self.train_step(X_train, y_train)
            self.history["loss"].append(loss)
            self.history["acc"].append(acc)


def main():
    torch.manual_seed(42)
    centers = torch.tensor([[2.0, 2.0], [-2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]])
    y_train = torch.randint(0, 4, (64,))
    X_train = centers[y_train] + 0.5 * torch.randn(64, 2)
    trainer = MultiClassTrainer(BlobClassifier())
    trainer.fit(X_train, y_train)


if __name__ == "__main__":
    main()
