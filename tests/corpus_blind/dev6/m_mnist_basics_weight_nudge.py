# corpus: from-scratch 3-vs-7 MNIST linear classifier (fastbook chapter 4 style); to show that accuracy barely moves, one weight is nudged with weights[0] *= 1.0001 while autograd is recording, an in-place write through a view of a requires-grad leaf
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation
# source: https://github.com/fastai/fastbook/pull/471
import torch


def init_params(size, std=1.0):
    return (torch.randn(size) * std).requires_grad_()


def make_dataset(n=64):
    threes = torch.rand(n, 28 * 28) * 0.5
    sevens = torch.rand(n, 28 * 28) * 0.5 + 0.3
    train_x = torch.cat([threes, sevens])
    train_y = torch.tensor([1] * n + [0] * n).unsqueeze(1)
    return train_x, train_y


train_x, train_y = make_dataset()
dset = list(zip(train_x, train_y))
dl = [(train_x[i:i + 32], train_y[i:i + 32]) for i in range(0, len(train_x), 32)]

weights = init_params((28 * 28, 1))
bias = init_params(1)


def linear1(xb):
    return xb @ weights + bias


def batch_accuracy(xb, yb):
    preds = xb.sigmoid()
    correct = (preds > 0.5) == yb
    return correct.float().mean()


def mnist_loss(predictions, targets):
    predictions = predictions.sigmoid()
    return torch.where(targets == 1, 1 - predictions, predictions).mean()


def calc_grad(xb, yb, model):
    preds = model(xb)
    loss = mnist_loss(preds, yb)
    loss.backward()


def train_epoch(model, lr, params):
    for xb, yb in dl:
        calc_grad(xb, yb, model)
        for p in params:
            p.data -= p.grad * lr
            p.grad.zero_()


def validate_epoch(model):
    accs = [batch_accuracy(model(xb), yb) for xb, yb in dl]
    return round(torch.stack(accs).mean().item(), 4)


preds = linear1(train_x)
corrects = (preds > 0.0).float() == train_y
print("accuracy before nudge", corrects.float().mean().item())

weights[0] *= 1.0001  # expect: GG108
preds = linear1(train_x)
print("accuracy after nudge", ((preds > 0.0).float() == train_y).float().mean().item())

lr = 1.0
params = weights, bias
for i in range(3):
    train_epoch(linear1, lr, params)
    print(validate_epoch(linear1), end=" ")
print()
