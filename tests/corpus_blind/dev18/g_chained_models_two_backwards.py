# corpus: Two chained networks (the second consumes the first one's output, as a discriminator consumes a generator's) each trained by its own loss and optimizer; the second loss is backpropagated first and frees the shared first-model graph that the first loss still needs.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://blog.csdn.net/qq_28888837/article/details/103651695
import torch


class TwoStageTrainer:
    def __init__(self, in_dim=10, n_classes=2):
        self.model1 = torch.nn.Linear(in_dim, n_classes)
        self.model2 = torch.nn.Linear(n_classes, n_classes)
        self.optimizer1 = torch.optim.Adam(self.model1.parameters(), lr=0.001, betas=(0.5, 0.999))
        self.optimizer2 = torch.optim.Adam(self.model2.parameters(), lr=0.001, betas=(0.5, 0.999))
        self.loss = torch.nn.CrossEntropyLoss()
        self.history = {"l1": [], "l2": []}

    def forward(self, data, label):
        a = self.model1(data)
        b = self.model2(a)
        l1 = self.loss(a, label)
        l2 = self.loss(b, label)
        return {"l1": l1, "l2": l2}

    def step(self, data, label):
        losses = self.forward(data, label)
        l1, l2 = losses["l1"], losses["l2"]
        self.optimizer2.zero_grad()
        l2.backward()  # also: GG102
        self.optimizer2.step()

        self.optimizer1.zero_grad()
        l1.backward()  # expect: GG102
        self.optimizer1.step()
        for k, v in losses.items():
            self.history[k].append(v.item())


def main():
    torch.manual_seed(0)
    trainer = TwoStageTrainer()
    data = torch.randn(4, 10)
    label = torch.Tensor([0, 1, 1, 0]).long()
    for i in range(20):
        trainer.step(data, label)
    print({k: v[-1] for k, v in trainer.history.items()})


if __name__ == "__main__":
    main()
