# corpus: module-level train/evaluate functions; evaluate() runs the model without no_grad and calls .numpy() on softmax probabilities that still require grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad.
# source: docs/rules/GG110.md (shape: 2)
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def build_model(in_dim, num_classes):
    return nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, num_classes))


def compute_loss(model, x, y):
    return F.cross_entropy(model(x), y)


def train_one_epoch(model, optimizer, batches):
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = compute_loss(model, x, y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(batches)


def evaluate(model, x, y):
    logits = model(x)
    probs = torch.softmax(logits, dim=1).numpy()  # expect: GG110
    accuracy = float((probs.argmax(axis=1) == y.numpy()).mean())
    confidence = float(np.max(probs, axis=1).mean())
    return {"accuracy": accuracy, "confidence": confidence}


def main():
    torch.manual_seed(0)
    model = build_model(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(3)]
    x_val, y_val = torch.randn(16, 4), torch.randint(0, 3, (16,))
    for epoch in range(2):
        train_loss = train_one_epoch(model, optimizer, batches)
        metrics = evaluate(model, x_val, y_val)
        print(epoch, round(train_loss, 4), metrics)


if __name__ == "__main__":
    main()
