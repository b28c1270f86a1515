# corpus: DomainBed-style IGA algorithm: per-environment and mean gradients come from autograd.grad without create_graph=True, so the gradient-variance penalty added to the objective is a constant and never trains the network
# source: https://github.com/facebookresearch/DomainBed/pull/51
import argparse

import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, n_inputs, n_outputs, hparams):
        super().__init__()
        self.input = nn.Linear(n_inputs, hparams["mlp_width"])
        self.dropout = nn.Dropout(hparams["mlp_dropout"])
        self.output = nn.Linear(hparams["mlp_width"], n_outputs)

    def forward(self, x):
        x = F.relu(self.dropout(self.input(x)))
        return self.output(x)


class Algorithm(nn.Module):
    def __init__(self, input_shape, num_classes, num_domains, hparams):
        super().__init__()
        self.hparams = hparams

    def update(self, minibatches, unlabeled=None):
        raise NotImplementedError


class ERM(Algorithm):
    def __init__(self, input_shape, num_classes, num_domains, hparams):
        super().__init__(input_shape, num_classes, num_domains, hparams)
        self.network = MLP(input_shape[0], num_classes, hparams)
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=hparams["lr"],
                                          weight_decay=hparams["weight_decay"])

    def predict(self, x):
        return self.network(x)


class IGA(ERM):
    """Inter-environmental Gradient Alignment."""

    def update(self, minibatches, unlabeled=None):
        total_loss = 0
        grads = []
        for i, (x, y) in enumerate(minibatches):
            logits = self.network(x)
            env_loss = F.cross_entropy(logits, y)
            total_loss += env_loss
            env_grad = autograd.grad(env_loss, self.network.parameters(), retain_graph=True)  # expect: GG202
            grads.append(env_grad)

        mean_loss = total_loss / len(minibatches)
        mean_grad = autograd.grad(mean_loss, self.network.parameters(), retain_graph=True)  # expect: GG202

        # compute trace penalty
        penalty_value = 0
        for grad in grads:
            for g, mean_g in zip(grad, mean_grad):
                penalty_value += (g - mean_g).pow(2).sum()

        objective = mean_loss + self.hparams["penalty"] * penalty_value
        self.optimizer.zero_grad()
        objective.backward()
        self.optimizer.step()
        return {"loss": mean_loss.item(), "penalty": penalty_value.item()}


def random_minibatches(num_envs, batch_size, n_features, num_classes):
    return [(torch.randn(batch_size, n_features), torch.randint(0, num_classes, (batch_size,)))
            for _ in range(num_envs)]


def main():
    parser = argparse.ArgumentParser(description="Domain generalization")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--num_envs", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=16)
    args = parser.parse_args([])
    hparams = {"mlp_width": 32, "mlp_dropout": 0.0, "lr": 1e-3, "weight_decay": 0.0, "penalty": 1000.0}
    torch.manual_seed(0)
    algorithm = IGA((10,), 4, args.num_envs, hparams)
    for step in range(args.steps):
        minibatches = random_minibatches(args.num_envs, args.batch_size, 10, 4)
        step_vals = algorithm.update(minibatches)
        print(step, {k: round(v, 4) for k, v in step_vals.items()})


if __name__ == "__main__":
    main()
