# corpus: federated Server.evaluate() aggregates per-user test losses (computed with grad enabled) with np.sum
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/zhuangdizhu/FedGen/issues/1
import copy

import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 24)
        self.fc2 = nn.Linear(24, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class User:
    def __init__(self, user_id, model, train_data, test_data, lr=0.05, local_epochs=2):
        self.id = user_id
        self.model = copy.deepcopy(model)
        self.train_data = train_data
        self.test_data = test_data
        self.loss = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)
        self.local_epochs = local_epochs

    def set_parameters(self, model):
        self.model.load_state_dict(model.state_dict())

    def train(self):
        self.model.train()
        for _ in range(self.local_epochs):
            for x, y in self.train_data:
                self.optimizer.zero_grad()
                loss = self.loss(self.model(x), y)
                loss.backward()
                self.optimizer.step()

    def test(self):
        self.model.eval()
        test_acc = 0
        loss = 0
        for x, y in self.test_data:
            output = self.model(x)
            loss += self.loss(output, y)  # also: GG110
            test_acc += (torch.sum(torch.argmax(output, dim=1) == y)).item()
        return test_acc, loss, y.shape[0] * len(self.test_data)


class Server:
    def __init__(self, model, users):
        self.model = model
        self.users = users
        self.metrics = {"glob_acc": [], "glob_loss": []}

    def send_parameters(self):
        for user in self.users:
            user.set_parameters(self.model)

    def aggregate_parameters(self):
        total = sum(len(u.train_data) for u in self.users)
        with torch.no_grad():
            for name, param in self.model.named_parameters():
                param.zero_()
                for u in self.users:
                    param.add_(dict(u.model.named_parameters())[name] * len(u.train_data) / total)

    def test(self):
        num_samples, tot_correct, losses = [], [], []
        for c in self.users:
            ct, c_loss, ns = c.test()
            tot_correct.append(ct * 1.0)
            num_samples.append(ns)
            losses.append(c_loss)
        return num_samples, tot_correct, losses

    def evaluate(self):
        test_samples, test_accs, test_losses = self.test()
        glob_acc = np.sum(test_accs) * 1.0 / np.sum(test_samples)
        glob_loss = np.sum([x * y for (x, y) in zip(test_samples, test_losses)]).item() / np.sum(test_samples)  # expect: GG110
        self.metrics["glob_acc"].append(glob_acc)
        self.metrics["glob_loss"].append(glob_loss)
        print("Average Global Accuracy = {:.4f}, Loss = {:.2f}.".format(glob_acc, glob_loss))

    def train(self, num_glob_iters=2):
        for glob_iter in range(num_glob_iters):
            self.send_parameters()
            self.evaluate()
            for user in self.users:
                user.train()
            self.aggregate_parameters()


def make_split(n):
    return [(torch.randn(8, 12), torch.randint(0, 10, (8,))) for _ in range(n)]


def main():
    torch.manual_seed(0)
    model = Net()
    users = [User(i, model, make_split(3), make_split(1)) for i in range(3)]
    server = Server(model, users)
    server.train()


if __name__ == "__main__":
    main()
