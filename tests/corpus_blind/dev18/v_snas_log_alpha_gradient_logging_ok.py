# corpus: A SNAS-style architecture search backpropagates the resource loss and the error loss separately with retain_graph=True only to log each one's gradient on log_alpha, then backpropagates their sum once and steps; this is fine.
# source: https://github.com/SNAS-Series/SNAS-Series/issues/10
import torch
import torch.nn as nn
import torch.nn.functional as F

OPS = {
    "skip": lambda c: nn.Identity(),
    "conv3": lambda c: nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c, affine=False), nn.ReLU()),
    "conv5": lambda c: nn.Sequential(nn.Conv2d(c, c, 5, padding=2, bias=False), nn.BatchNorm2d(c, affine=False), nn.ReLU()),
    "avgpool": lambda c: nn.AvgPool2d(3, stride=1, padding=1),
}
OP_COST = torch.tensor([0.0, 9.0, 25.0, 1.0])


class MixedOp(nn.Module):
    def __init__(self, c):
        super(MixedOp, self).__init__()
        self._ops = nn.ModuleList(OPS[name](c) for name in OPS)

    def forward(self, x, weights):
        return sum(w * op(x) for w, op in zip(weights, self._ops))


class SearchNetwork(nn.Module):
    def __init__(self, c=8, n_edges=3, num_classes=10, temperature=1.0):
        super(SearchNetwork, self).__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, padding=1, bias=False), nn.BatchNorm2d(c))
        self.edges = nn.ModuleList(MixedOp(c) for _ in range(n_edges))
        self.classifier = nn.Linear(c, num_classes)
        self.normal_log_alpha = nn.Parameter(1e-3 * torch.randn(n_edges, len(OPS)))
        self.temperature = temperature

    def weight_parameters(self):
        return [p for n, p in self.named_parameters() if "log_alpha" not in n]

    def arch_parameters(self):
        return [self.normal_log_alpha]

    def forward(self, x):
        one_hot = F.gumbel_softmax(self.normal_log_alpha, tau=self.temperature, hard=False, dim=-1)
        h = self.stem(x)
        for edge, w in zip(self.edges, one_hot):
            h = edge(h, w)
        logits = self.classifier(F.adaptive_avg_pool2d(h, 1).flatten(1))
        return logits, one_hot


class Trainer(object):
    def __init__(self, model, resource_lambda=1e-3):
        self.model = model
        self.resource_lambda = resource_lambda
        self.optimizer = torch.optim.SGD(model.weight_parameters(), lr=0.025, momentum=0.9)
        self.arch_optimizer = torch.optim.Adam(model.arch_parameters(), lr=3e-4, betas=(0.5, 0.999))
        self.criterion = nn.CrossEntropyLoss()

    def train_epoch(self, loader):
        normal_resource_gradient = 0
        normal_loss_gradient = 0
        normal_total_gradient = 0
        for step, (x, y) in enumerate(loader):
            logits, one_hot = self.model(x)
            error_loss = self.criterion(logits, y)
            resource_loss = self.resource_lambda * (one_hot * OP_COST).sum()
            loss = resource_loss.clone() + error_loss.clone()

            self.optimizer.zero_grad()
            self.arch_optimizer.zero_grad()
            resource_loss.backward(retain_graph=True)
            normal_resource_gradient += self.model.normal_log_alpha.grad

            self.optimizer.zero_grad()
            self.arch_optimizer.zero_grad()
            error_loss.backward(retain_graph=True)
            normal_loss_gradient += self.model.normal_log_alpha.grad

            self.optimizer.zero_grad()
            self.arch_optimizer.zero_grad()
            loss.backward()
            normal_total_gradient += self.model.normal_log_alpha.grad

            self.optimizer.step()
            self.arch_optimizer.step()
            print("step %d  error %.4f  resource %.4f" % (step, error_loss.item(), resource_loss.item()))
        return {
            "resource_grad": normal_resource_gradient,
            "loss_grad": normal_loss_gradient,
            "total_grad": normal_total_gradient,
        }


def cifar_like(n, bs=4):
    return [(torch.randn(bs, 3, 16, 16), torch.randint(0, 10, (bs,))) for _ in range(n)]


def main():
    torch.manual_seed(0)
    trainer = Trainer(SearchNetwork())
    for epoch in range(2):
        grads = trainer.train_epoch(cifar_like(3))
        print("epoch", epoch, {k: round(v.abs().sum().item(), 6) for k, v in grads.items()})


if __name__ == "__main__":
    main()
