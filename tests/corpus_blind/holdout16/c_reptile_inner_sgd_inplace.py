# corpus: Reptile meta-learning on random sine-wave regression tasks; the hand-written inner SGD step subtracts the gradient from each parameter in place while autograd is recording, which torch refuses for a leaf that requires grad.
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/JosephKJ/PyTorch-MAML-and-Reptile/blob/master/main.py
import argparse
from copy import deepcopy

import numpy as np
import torch
from torch import nn


def experiment(run, n_iterations=3):
    seed = 0
    inner_step_size = 0.02  # stepsize in inner SGD
    inner_epochs = 1  # number of epochs of each inner SGD
    outer_stepsize_reptile = 0.1  # stepsize of outer optimization, i.e., meta-optimization

    rng = np.random.RandomState(seed)
    torch.manual_seed(seed)

    x_all = np.linspace(-5, 5, 50)[:, None]
    n_train = 10

    def gen_task():
        phase = rng.uniform(low=0, high=2 * np.pi)
        ampl = rng.uniform(0.1, 5)
        return lambda x: np.sin(x + phase) * ampl

    model = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))

    def to_torch(x):
        return torch.tensor(x, dtype=torch.float32)

    def train_on_batch(x, y):
        x = to_torch(x)
        y = to_torch(y)
        model.zero_grad()
        ypred = model(x)
        loss = (ypred - y).pow(2).mean()
        loss.backward()
        for param in model.parameters():
            param -= inner_step_size * param.grad  # expect: GG108

    def predict(x):
        with torch.no_grad():
            return model(to_torch(x)).numpy()

    for iteration in range(n_iterations):
        weights_before = deepcopy(model.state_dict())
        f = gen_task()
        y_all = f(x_all)
        inds = rng.permutation(len(x_all))
        train_ind = inds[: -1 * n_train]
        for _ in range(inner_epochs):
            for start in range(0, len(train_ind), n_train):
                mbinds = train_ind[start : start + n_train]
                train_on_batch(x_all[mbinds], y_all[mbinds])
        if run == "Reptile":
            weights_after = model.state_dict()
            outerstepsize = outer_stepsize_reptile * (1 - iteration / n_iterations)
            model.load_state_dict(
                {name: weights_before[name] + (weights_after[name] - weights_before[name]) * outerstepsize
                 for name in weights_before}
            )
        lossval = np.square(predict(x_all) - f(x_all)).mean()
        print(f"iteration {iteration + 1} loss on task {lossval:.3f}")


def main():
    parser = argparse.ArgumentParser(description="MAML and Reptile Sine wave regression example.")
    parser.add_argument("--run", dest="run", default="Reptile")
    args = parser.parse_args([])
    experiment(args.run)


if __name__ == "__main__":
    main()
