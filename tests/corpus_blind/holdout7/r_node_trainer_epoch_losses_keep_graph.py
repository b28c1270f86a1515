# corpus: neuromancer-style Trainer for a neural ODE system: per-batch train losses are appended to a list and stacked into the epoch metric without detaching, keeping every batch's rollout graph alive
# source: https://github.com/pnnl/neuromancer/pull/292
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, insize, outsize, hsizes=(16, 16)):
        super().__init__()
        sizes = [insize, *hsizes, outsize]
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [nn.Linear(a, b), nn.GELU()]
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.net(x)


class RK4(nn.Module):
    def __init__(self, block, h=0.1):
        super().__init__()
        self.block = block
        self.h = h

    def forward(self, x):
        h = self.h
        k1 = self.block(x)
        k2 = self.block(x + h * k1 / 2)
        k3 = self.block(x + h * k2 / 2)
        k4 = self.block(x + h * k3)
        return x + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6


class System(nn.Module):
    def __init__(self, integrator, nsteps):
        super().__init__()
        self.integrator = integrator
        self.nsteps = nsteps

    def forward(self, data):
        x = data["xn"][:, 0]
        traj = [x]
        for _ in range(self.nsteps - 1):
            x = self.integrator(x)
            traj.append(x)
        data = dict(data)
        data["xhat"] = torch.stack(traj, dim=1)
        return data


class Problem(nn.Module):
    def __init__(self, system):
        super().__init__()
        self.system = system

    def forward(self, batch, prefix):
        out = self.system(batch)
        loss = torch.mean((out["xhat"] - batch["X"]) ** 2)
        return {f"{prefix}_loss": loss, f"{prefix}_xhat": out["xhat"]}


class Trainer:
    def __init__(self, problem, train_data, dev_data, optimizer, epochs=3, train_metric="train_loss", dev_metric="dev_loss"):
        self.model = problem
        self.train_data = train_data
        self.dev_data = dev_data
        self.optimizer = optimizer
        self.epochs = epochs
        self.train_metric = train_metric
        self.dev_metric = dev_metric
        self.best_devloss = float("inf")

    def train(self):
        for i in range(self.epochs):
            losses = []
            for t_batch in self.train_data:
                output = self.model(t_batch, "train")
                self.optimizer.zero_grad()
                output[self.train_metric].backward()
                self.optimizer.step()
                losses.append(output[self.train_metric])  # expect: GG301
            output["mean_train_loss"] = torch.mean(torch.stack(losses))
            self.model.eval()
            with torch.no_grad():
                dev_output = self.model(self.dev_data, "dev")
            self.model.train()
            if dev_output[self.dev_metric] < self.best_devloss:
                self.best_devloss = dev_output[self.dev_metric].item()
            print(f"epoch: {i}  mean_train_loss: {output['mean_train_loss'].item():.4f}  dev_loss: {self.best_devloss:.4f}")
        return output


def make_batch(nbatch, nsteps, nx):
    X = torch.cumsum(0.1 * torch.randn(nbatch, nsteps, nx), dim=1)
    return {"X": X, "xn": X[:, :1]}


def main():
    torch.manual_seed(0)
    nx, nsteps = 2, 6
    fx = MLP(nx, nx)
    system = System(RK4(fx, h=0.1), nsteps)
    problem = Problem(system)
    train_data = [make_batch(8, nsteps, nx) for _ in range(4)]
    dev_data = make_batch(8, nsteps, nx)
    optimizer = torch.optim.AdamW(problem.parameters(), lr=1e-3)
    Trainer(problem, train_data, dev_data, optimizer).train()


if __name__ == "__main__":
    main()
