# corpus: PGD adversarial training class: the perturbation is a leaf updated in place under no_grad with delta.grad cleared every attack step, the adversarial batch is detached, and the model's grads are zeroed after the attack, right before the training backward (correct)
# source: https://github.com/DSE-MSU/DeepRobust/issues/36
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 2, 1)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.fc(x.flatten(1))


class PGDtraining:
    def __init__(self, model, device="cpu"):
        self.model = model
        self.device = device

    def generate(self, train_loader, epochs=1, lr=0.01, **kwargs):
        self.parse_params(**kwargs)
        optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)
        for epoch in range(1, epochs + 1):
            self.train(train_loader, optimizer, epoch)
        return self.model

    def parse_params(self, epsilon=0.3, num_steps=5, perturb_step_size=0.05):
        self.epsilon = epsilon
        self.num_steps = num_steps
        self.perturb_step_size = perturb_step_size

    def train(self, train_loader, optimizer, epoch):
        self.model.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            data_adv = self.adv_data(data, target, ep=self.epsilon, num_steps=self.num_steps,
                                     perturb_step_size=self.perturb_step_size)
            optimizer.zero_grad()
            output = self.model(data_adv)
            loss = F.cross_entropy(output, target)
            loss.backward()
            optimizer.step()
            pred = output.argmax(dim=1, keepdim=True)
            correct = pred.eq(target.view_as(pred)).sum().item()
            print("Train Epoch: {} batch {}\tLoss: {:.6f}\tAdv acc: {:.2f}".format(
                epoch, batch_idx, loss.item(), correct / len(data)))

    def adv_data(self, data, target, ep=0.3, num_steps=10, perturb_step_size=0.01):
        delta = torch.zeros_like(data).uniform_(-ep, ep)
        delta = ((data + delta).clamp(0, 1) - data).requires_grad_(True)
        for _ in range(num_steps):
            loss = F.cross_entropy(self.model(data + delta), target)
            loss.backward()
            with torch.no_grad():
                delta += perturb_step_size * delta.grad.sign()
                delta.clamp_(-ep, ep)
                delta.copy_((data + delta).clamp(0, 1) - data)
            delta.grad.zero_()
        return (data + delta).detach()


def fake_mnist_loader(n_batches, batch_size):
    return [(torch.rand(batch_size, 1, 28, 28), torch.randint(0, 10, (batch_size,))) for _ in range(n_batches)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batches", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=8)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = CNN()
    defense = PGDtraining(model)
    w0 = model.fc.weight.detach().clone()
    defense.generate(fake_mnist_loader(args.batches, args.batch_size), epochs=args.epochs,
                     epsilon=0.3, num_steps=5, perturb_step_size=0.05)
    print("model trained:", (model.fc.weight - w0).abs().sum().item() > 0)


if __name__ == "__main__":
    main()
