# corpus: Hessian-vector products on a small conv net (timing report shape): the gradient is taken once with create_graph=True and every power-iteration step calls autograd.grad(grad, params, grad_outputs=v, retain_graph=True) on that same graph, with no optimizer step until the estimate is done and a fresh forward for the training step; correct
# source: https://github.com/pytorch/pytorch/issues/24004
import time

import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.nn.functional as F


def hv(grad, model, v):
    s = time.time()
    Hv = autograd.grad(grad, model.parameters(), grad_outputs=v, retain_graph=True)
    return Hv, time.time() - s


class CNN_ReLU(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1), nn.BatchNorm2d(8))
        self.conv2 = nn.Sequential(nn.Conv2d(8, 8, kernel_size=3, stride=1, padding=1), nn.BatchNorm2d(8),
                                   nn.MaxPool2d(kernel_size=2))
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(x.view(x.size(0), -1))


def normalize(vs):
    norm = torch.sqrt(sum((v * v).sum() for v in vs))
    return [v / (norm + 1e-12) for v in vs]


def top_eigenvalue(model, criterion, inputs, targets, iters=8):
    loss = criterion(model(inputs), targets)
    s = time.time()
    grad = autograd.grad(loss, model.parameters(), create_graph=True, retain_graph=True)
    first = time.time() - s
    v = normalize([torch.randn_like(p) for p in model.parameters()])
    eigenvalue, second = None, 0.0
    for i in range(iters):
        Hv, dt = hv(grad, model, v)
        second += dt
        eigenvalue = sum((h * u).sum() for h, u in zip(Hv, v)).item()
        v = normalize([h.detach() for h in Hv])
    print("1st back prop: {:.4f} sec. 2nd back prop (total): {:.4f} sec".format(first, second))
    return eigenvalue


def train_epoch(model, criterion, optimizer, batches):
    model.train()
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = CNN_ReLU()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    batches = [(torch.randn(16, 3, 8, 8), torch.randint(0, 10, (16,))) for _ in range(3)]
    for epoch in range(2):
        lam = top_eigenvalue(model, criterion, *batches[0])
        last = train_epoch(model, criterion, optimizer, batches)
        print(f"epoch {epoch}: top Hessian eigenvalue {lam:.4f}, last loss {last:.4f}")


if __name__ == "__main__":
    main()
