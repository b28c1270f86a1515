# corpus: advertorch-style LinfPGDAttack: perturb_iterative backpropagates the loss into delta every iteration, reads delta.grad, updates delta through .data after the backward and zeroes delta.grad at the end of each iteration; the attack runs with model parameter grads disabled and returns detached data for a standard adversarial-training step; correct
# source: https://github.com/BorealisAI/advertorch/issues/85
from contextlib import contextmanager

import numpy as np
import torch
import torch.nn as nn


def clamp(input, min=None, max=None):
    return torch.clamp(input, min=min, max=max)


def batch_multiply(float_or_vector, tensor):
    return float_or_vector * tensor


def batch_clamp(float_or_vector, tensor):
    return torch.clamp(tensor, -float_or_vector, float_or_vector)


def perturb_iterative(xvar, yvar, predict, nb_iter, eps, eps_iter, loss_fn, delta_init=None, minimize=False,
                      ord=np.inf, clip_min=0.0, clip_max=1.0):
    if delta_init is not None:
        delta = delta_init
    else:
        delta = torch.zeros_like(xvar)

    delta.requires_grad_()
    for ii in range(nb_iter):
        outputs = predict(xvar + delta)
        loss = loss_fn(outputs, yvar)
        if minimize:
            loss = -loss

        loss.backward()
        if ord == np.inf:
            grad_sign = delta.grad.data.sign()
            delta.data = delta.data + batch_multiply(eps_iter, grad_sign)
            delta.data = batch_clamp(eps, delta.data)
            delta.data = clamp(xvar.data + delta.data, clip_min, clip_max) - xvar.data
        else:
            raise NotImplementedError("Only ord = inf has been implemented")
        delta.grad.data.zero_()

    x_adv = clamp(xvar + delta, clip_min, clip_max)
    return x_adv


class LinfPGDAttack:
    def __init__(self, predict, loss_fn=None, eps=0.3, nb_iter=5, eps_iter=0.05, rand_init=True,
                 clip_min=0.0, clip_max=1.0, targeted=False):
        self.predict = predict
        self.loss_fn = loss_fn if loss_fn is not None else nn.CrossEntropyLoss(reduction="sum")
        self.eps = eps
        self.nb_iter = nb_iter
        self.eps_iter = eps_iter
        self.rand_init = rand_init
        self.clip_min = clip_min
        self.clip_max = clip_max
        self.targeted = targeted

    def perturb(self, x, y):
        delta = torch.zeros_like(x)
        delta = nn.Parameter(delta)
        if self.rand_init:
            delta.data.uniform_(-self.eps, self.eps)
            delta.data = clamp(x + delta.data, min=self.clip_min, max=self.clip_max) - x
        rval = perturb_iterative(x, y, self.predict, nb_iter=self.nb_iter, eps=self.eps, eps_iter=self.eps_iter,
                                 loss_fn=self.loss_fn, minimize=self.targeted, ord=np.inf,
                                 clip_min=self.clip_min, clip_max=self.clip_max, delta_init=delta)
        return rval.data


@contextmanager
def ctx_noparamgrad_and_eval(module):
    was_training = module.training
    flags = [p.requires_grad for p in module.parameters()]
    for p in module.parameters():
        p.requires_grad_(False)
    module.eval()
    try:
        yield module
    finally:
        for p, flag in zip(module.parameters(), flags):
            p.requires_grad_(flag)
        module.train(was_training)


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.relu1 = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(2)
        self.linear = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        out = self.pool(self.relu1(self.conv1(x)))
        return self.linear(out.flatten(1))


def train_adversarial(model, loader, epochs=2):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    adversary = LinfPGDAttack(model, loss_fn=nn.CrossEntropyLoss(reduction="sum"), eps=0.3, nb_iter=4,
                              eps_iter=0.05, rand_init=True, clip_min=0.0, clip_max=1.0, targeted=False)
    for epoch in range(epochs):
        model.train()
        for batch_idx, (data, target) in enumerate(loader):
            with ctx_noparamgrad_and_eval(model):
                data = adversary.perturb(data, target)
            output = model(data)
            loss = nn.functional.cross_entropy(output, target, reduction="mean")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print("epoch {} batch {} adv loss {:.4f}".format(epoch, batch_idx, loss.item()))


def main():
    torch.manual_seed(0)
    loader = [(torch.rand(4, 1, 8, 8), torch.randint(0, 10, (4,))) for _ in range(2)]
    train_adversarial(LeNet5(), loader)


if __name__ == "__main__":
    main()
