# corpus: DomainBed-style IGA algorithm: per-environment and mean gradients come from autograd.grad without create_graph, so the gradient-variance penalty added to the loss is a constant and never trains the network
# source: https://github.com/facebookresearch/DomainBed/issues/50
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class MLP(nn.Module):
    """Just an MLP featurizer, as in DomainBed's networks.MLP."""

    def __init__(self, n_inputs, n_outputs, hparams):
        super().__init__()
        self.input = nn.Linear(n_inputs, hparams["mlp_width"])
        self.dropout = nn.Dropout(hparams["mlp_dropout"])
        self.hiddens = nn.ModuleList(
            [nn.Linear(hparams["mlp_width"], hparams["mlp_width"]) for _ in range(hparams["mlp_depth"] - 2)]
        )
        self.output = nn.Linear(hparams["mlp_width"], n_outputs)
        self.n_outputs = n_outputs

    def forward(self, x):
        x = F.relu(self.dropout(self.input(x)))
        for hidden in self.hiddens:
            x = F.relu(self.dropout(hidden(x)))
        return self.output(x)


class Algorithm(nn.Module):
    def __init__(self, input_shape, num_classes, num_domains, hparams):
        super().__init__()
        self.hparams = hparams

    def update(self, minibatches, unlabeled=None):
        raise NotImplementedError

    def predict(self, x):
        raise NotImplementedError


class ERM(Algorithm):
    def __init__(self, input_shape, num_classes, num_domains, hparams):
        super().__init__(input_shape, num_classes, num_domains, hparams)
        self.featurizer = MLP(input_shape[0], hparams["mlp_width"], hparams)
        self.classifier = nn.Linear(self.featurizer.n_outputs, num_classes)
        self.network = nn.Sequential(self.featurizer, self.classifier)
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=hparams["lr"],
                                          weight_decay=hparams["weight_decay"])

    def update(self, minibatches, unlabeled=None):
        all_x = torch.cat([x for x, y in minibatches])
        all_y = torch.cat([y for x, y in minibatches])
        loss = F.cross_entropy(self.predict(all_x), all_y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.item()}

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
        mean_grad = autograd.grad(mean_loss, self.network.parameters(), retain_graph=True)  # also: GG202

        penalty_value = 0
        for grad in grads:
            for g, mean_g in zip(grad, mean_grad):
                penalty_value += (g - mean_g).pow(2).sum()

        objective = mean_loss + self.hparams["penalty"] * penalty_value
        self.optimizer.zero_grad()
        objective.backward()  # also: GG202
        self.optimizer.step()
        return {"loss": mean_loss.item(), "penalty": float(penalty_value)}


def default_hparams():
    return {
        "lr": 1e-3,
        "weight_decay": 0.0,
        "mlp_width": 16,
        "mlp_depth": 3,
        "mlp_dropout": 0.0,
        "penalty": 1000.0,
    }


def make_minibatches(num_envs=3, batch_size=8, n_inputs=10, num_classes=2):
    batches = []
    for env in range(num_envs):
        x = torch.randn(batch_size, n_inputs) + 0.5 * env
        y = torch.randint(0, num_classes, (batch_size,))
        batches.append((x, y))
    return batches


def main():
    torch.manual_seed(0)
    hparams = default_hparams()
    algorithm = IGA(input_shape=(10,), num_classes=2, num_domains=3, hparams=hparams)
    for step in range(5):
        step_vals = algorithm.update(make_minibatches())
        print(f"step {step}: " + ", ".join(f"{k}={v:.4f}" for k, v in step_vals.items()))


if __name__ == "__main__":
    main()
