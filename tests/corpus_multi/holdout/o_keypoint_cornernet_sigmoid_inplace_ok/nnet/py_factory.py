import torch
import torch.nn as nn


class Network(nn.Module):
    def __init__(self, model, loss):
        super(Network, self).__init__()
        self.model = model
        self.loss = loss

    def forward(self, xs, ys, **kwargs):
        preds = self.model(*xs, **kwargs)
        loss = self.loss(preds, ys, **kwargs)
        return loss


class NetworkFactory(object):
    def __init__(self, model, loss, learning_rate=2.5e-4):
        self.model = model
        self.network = Network(self.model, loss)
        self.optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, self.model.parameters()))
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = learning_rate

    def train_mode(self):
        self.network.train()

    def train(self, xs, ys, **kwargs):
        xs = [x for x in xs]
        ys = [y for y in ys]

        self.optimizer.zero_grad()
        loss = self.network(xs, ys)
        loss = loss.mean()
        loss.backward()
        self.optimizer.step()
        return loss
