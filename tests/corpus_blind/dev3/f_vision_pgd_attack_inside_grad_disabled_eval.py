# corpus: robust-training repo's evaluate_robust turns gradients off globally with torch.set_grad_enabled(False) and then runs the PGD attack helper, whose loss.backward() finds no graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/locuslab/convex_adversarial/issues/34
import time
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable


class Flatten(nn.Module):
    def forward(self, x):
        return x.view(x.size(0), -1)


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def _pgd(model, X, y, epsilon, niters=10, alpha=0.01):
    out = model(X)
    err = (out.data.max(1)[1] != y.data).float().sum() / X.size(0)
    X_pgd = Variable(X.data, requires_grad=True)
    for i in range(niters):
        opt = optim.Adam([X_pgd], lr=1e-3)
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(X_pgd), y)
        loss.backward()  # also: GG106
        eta = alpha * X_pgd.grad.data.sign()
        X_pgd = Variable(X_pgd.data + eta, requires_grad=True)
        # adjust to be within [-epsilon, epsilon]
        eta = torch.clamp(X_pgd.data - X.data, -epsilon, epsilon)
        X_pgd = Variable(X.data + eta, requires_grad=True)
    err_pgd = (model(X_pgd).data.max(1)[1] != y.data).float().sum() / X.size(0)
    return err, err_pgd


def evaluate_robust(loader, model, epsilon, epoch, verbose=True):
    batch_time, losses, errors, pgd_errors = AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter()
    model.eval()
    end = time.time()
    torch.set_grad_enabled(False)  # also: GG106
    for i, (X, y) in enumerate(loader):
        out = model(Variable(X))
        ce = nn.CrossEntropyLoss()(out, Variable(y))
        err = (out.max(1)[1] != y).float().sum() / X.size(0)
        _, pgd_err = _pgd(model, Variable(X), Variable(y), epsilon)  # expect: GG106
        losses.update(ce.item(), X.size(0))
        errors.update(err.item(), X.size(0))
        pgd_errors.update(pgd_err.item(), X.size(0))
        batch_time.update(time.time() - end)
        end = time.time()
        if verbose:
            print(f"Test: [{i}/{len(loader)}]\tLoss {losses.val:.4f}\tError {errors.val:.3f}\tPGD error {pgd_errors.val:.3f}")
    torch.set_grad_enabled(True)
    print(f" * PGD error {pgd_errors.avg:.3f}\tError {errors.avg:.3f}")
    return pgd_errors.avg


def mnist_model():
    return nn.Sequential(
        nn.Conv2d(1, 4, 4, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(4, 8, 4, stride=2, padding=1), nn.ReLU(),
        Flatten(), nn.Linear(8 * 4 * 4, 32), nn.ReLU(), nn.Linear(32, 10),
    )


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    model = mnist_model()
    test_loader = [(torch.rand(8, 1, 16, 16), torch.randint(0, 10, (8,))) for _ in range(2)]
    evaluate_robust(test_loader, model, epsilon=0.1, epoch=0)
