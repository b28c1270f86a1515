class IterBasedRunner:
    def __init__(self, model, optimizer, max_iters, log_interval=1):
        self.model = model
        self.optimizer = optimizer
        self.max_iters = max_iters
        self.log_interval = log_interval
        self.iter = 0

    def run(self, data_loader):
        self.model.train()
        while self.iter < self.max_iters:
            data_batch = data_loader[self.iter % len(data_loader)]
            outputs = self.model.train_step(data_batch, self.optimizer)
            self.optimizer.zero_grad()
            outputs["loss"].backward()  # also: GG103
            self.optimizer.step()
            if self.iter % self.log_interval == 0:
                print(f"iter {self.iter}: {outputs['log_vars']}")
            self.iter += 1
