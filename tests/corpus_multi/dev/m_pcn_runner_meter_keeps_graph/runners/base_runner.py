import torch


class BaseRunner(object):
    def __init__(self, config, logger=print):
        self.config = config
        self.logger = logger
        self.loss = {}
        self.models = None
        self.optimizers = None

    def build_models(self):
        from models import SpareNetGenerator

        self.models = SpareNetGenerator(num_points=self.config["num_points"])
        self.optimizers = torch.optim.Adam(self.models.parameters(), lr=self.config["lr"])

    def train_step(self, items):
        raise NotImplementedError

    def train(self, train_loader, n_epochs):
        for epoch_idx in range(n_epochs):
            self.losses.reset()
            self.models.train()
            for batch_idx, items in enumerate(train_loader):
                self.train_step(items)
            avg = self.losses.avg()
            self.logger(f"[Epoch {epoch_idx}] " + " ".join(
                f"{name}={v:.3f}" for name, v in zip(self.losses.items, avg)))
