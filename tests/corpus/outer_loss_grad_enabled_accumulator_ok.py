# corpus: MAML-style outer loss accumulated in place into torch.tensor(0.) under set_grad_enabled(model.training) (correct)
import torch
import torch.nn as nn

torch.manual_seed(0)


class MetaLearner:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def outer_loss(self, tasks):
        mean_outer_loss = torch.tensor(0.0)
        for x, y in tasks:
            with torch.set_grad_enabled(self.model.training):
                outer_loss = nn.functional.mse_loss(self.model(x), y)
                mean_outer_loss += outer_loss
        mean_outer_loss.div_(len(tasks))
        return mean_outer_loss

    def train(self, batches):
        for tasks in batches:
            self.optimizer.zero_grad()
            loss = self.outer_loss(tasks)
            loss.backward()
            self.optimizer.step()


batches = [[(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)] for _ in range(2)]
MetaLearner(nn.Linear(3, 1)).train(batches)
