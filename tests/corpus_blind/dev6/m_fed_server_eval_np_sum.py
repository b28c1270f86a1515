# corpus: federated image-classification server: each user's test() sums the cross-entropy of the model output without no_grad, and Server.evaluate() aggregates those graph-carrying loss tensors with np.sum, which converts them to NumPy
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/zhuangdizhu/FedGen/issues/15
import argparse
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.fc1 = nn.Linear(6 * 6 * 6, 32)
        self.fc2 = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return {"output": F.log_softmax(self.fc2(x), dim=1)}


class User:
    def __init__(self, user_id, model, train_data, test_data, learning_rate, local_epochs):
        self.id = user_id
        self.model = copy.deepcopy(model)
        self.trainloader = train_data
        self.testloaderfull = test_data
        self.local_epochs = local_epochs
        self.loss = nn.NLLLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=learning_rate)

    def set_parameters(self, model):
        for param, new_param in zip(self.model.parameters(), model.parameters()):
            param.data = new_param.data.clone()

    def train(self):
        self.model.train()
        for _ in range(self.local_epochs):
            for x, y in self.trainloader:
                self.optimizer.zero_grad()
                output = self.model(x)["output"]
                loss = self.loss(output, y)
                loss.backward()
                self.optimizer.step()

    def test(self):
        self.model.eval()
        test_acc = 0
        loss = 0
        for x, y in self.testloaderfull:
            output = self.model(x)["output"]
            loss += self.loss(output, y)
            test_acc += (torch.sum(torch.argmax(output, dim=1) == y)).item()
        return test_acc, loss, y.shape[0]


class Server:
    def __init__(self, model, users):
        self.model = model
        self.users = users
        self.selected_users = users
        self.metrics = {"glob_acc": [], "glob_loss": []}

    def send_parameters(self):
        for user in self.users:
            user.set_parameters(self.model)

    def aggregate_parameters(self):
        total = sum(len(u.trainloader) for u in self.selected_users)
        for param in self.model.parameters():
            param.data = torch.zeros_like(param.data)
        for user in self.selected_users:
            ratio = len(user.trainloader) / total
            for server_param, user_param in zip(self.model.parameters(), user.model.parameters()):
                server_param.data = server_param.data + user_param.data.clone() * ratio

    def test(self, selected=False):
        num_samples = []
        tot_correct = []
        losses = []
        users = self.selected_users if selected else self.users
        for c in users:
            ct, c_loss, ns = c.test()
            tot_correct.append(ct * 1.0)
            num_samples.append(ns)
            losses.append(c_loss)
        ids = [c.id for c in self.users]
        return ids, num_samples, tot_correct, losses

    def evaluate(self, selected=False):
        test_ids, test_samples, test_accs, test_losses = self.test(selected=selected)
        glob_acc = np.sum(test_accs) * 1.0 / np.sum(test_samples)
        glob_loss = np.sum([x * y for (x, y) in zip(test_samples, test_losses)]).item() / np.sum(test_samples)  # expect: GG110
        self.metrics["glob_acc"].append(glob_acc)
        self.metrics["glob_loss"].append(glob_loss)
        print("Average Global Accuracy = {:.4f}, Loss = {:.2f}.".format(glob_acc, glob_loss))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_glob_iters", type=int, default=2)
    parser.add_argument("--local_epochs", type=int, default=1)
    parser.add_argument("--learning_rate", type=float, default=0.01)
    parser.add_argument("--num_users", type=int, default=3)
    args = parser.parse_args([])

    torch.manual_seed(0)
    model = Net()
    users = []
    for uid in range(args.num_users):
        train_data = [(torch.randn(4, 1, 14, 14), torch.randint(0, 10, (4,))) for _ in range(2)]
        test_data = [(torch.randn(4, 1, 14, 14), torch.randint(0, 10, (4,)))]
        users.append(User(uid, model, train_data, test_data, args.learning_rate, args.local_epochs))
    server = Server(model, users)
    for glob_iter in range(args.num_glob_iters):
        server.send_parameters()
        server.evaluate()
        for user in server.selected_users:
            user.train()
        server.aggregate_parameters()


if __name__ == "__main__":
    main()
