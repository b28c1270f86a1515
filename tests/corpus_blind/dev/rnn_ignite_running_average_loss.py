# corpus: mini ignite-style Engine trains an LSTM classifier; the RunningAverage metric blends the raw loss tensor into its state every iteration
# source: https://github.com/pytorch/ignite/pull/943
import torch
import torch.nn as nn
import torch.nn.functional as F


class RunningAverage:
    def __init__(self, alpha=0.98, output_transform=lambda x: x):
        self.alpha = alpha
        self.output_transform = output_transform
        self._value = None

    def reset(self):
        self._value = None

    def update(self, output):
        output = self.output_transform(output)
        if self._value is None:
            self._value = output  # also: GG301
        else:
            self._value = self._value * self.alpha + (1.0 - self.alpha) * output  # expect: GG301

    def compute(self):
        return self._value


class Engine:
    def __init__(self, process_function):
        self.process_function = process_function
        self.metrics = {}
        self.iteration = 0

    def attach(self, name, metric):
        self.metrics[name] = metric

    def run(self, data, max_epochs=1):
        for _ in range(max_epochs):
            for batch in data:
                self.iteration += 1
                output = self.process_function(self, batch)
                for metric in self.metrics.values():
                    metric.update(output)


class SeqClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 12, batch_first=True)
        self.fc = nn.Linear(12, 3)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])


def create_supervised_trainer(model, optimizer):
    def _update(engine, batch):
        model.train()
        optimizer.zero_grad()
        x, y = batch
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss
    return Engine(_update)


def main():
    torch.manual_seed(0)
    model = SeqClassifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = create_supervised_trainer(model, optimizer)
    avg = RunningAverage(output_transform=lambda x: x)
    trainer.attach("running_loss", avg)
    data = [(torch.randn(4, 7, 5), torch.randint(0, 3, (4,))) for _ in range(5)]
    trainer.run(data, max_epochs=2)
    return avg


if __name__ == "__main__":
    avg = main()
    value = avg.compute()
    # ground truth: the running average is a graph node chaining all 10 iterations' losses
    assert value.requires_grad and value.grad_fn is not None
    depth, node = 0, value.grad_fn
    while node is not None:
        nxt = [f for f, _ in node.next_functions if f is not None and type(f).__name__ in ("AddBackward0", "MulBackward0")]
        node = nxt[0] if nxt else None
        depth += 1
    assert depth >= 10
