class Trial:
    """Minimal torchbearer-style fit loop: model, optimizer, criterion and metric list."""

    def __init__(self, model, optimizer, criterion, metrics=()):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.metrics = list(metrics)
        self.generator = None

    def with_train_generator(self, generator):
        self.generator = generator
        return self

    def run(self, epochs=1):
        history = []
        for epoch in range(epochs):
            self.model.train()
            state = {"epoch": epoch}
            for m in self.metrics:
                m.reset(state)
            for x, y in self.generator:
                self.optimizer.zero_grad()
                y_pred = self.model(x)
                loss = self.criterion(y_pred, y)
                loss.backward()
                self.optimizer.step()
                state.update(x=x, y_true=y, y_pred=y_pred, loss=loss)
                for m in self.metrics:
                    m.process_train(state)
            results = {m.name: m.process_final_train(state) for m in self.metrics}  # also: GG110
            history.append(results)
            print(f"epoch {epoch}: {results}")
        return history
