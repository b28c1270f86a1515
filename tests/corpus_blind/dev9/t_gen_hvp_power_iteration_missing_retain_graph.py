# corpus: Hessian eigenvalue tracker builds the gradient graph once (create_graph=True) and runs power iteration with Hessian-vector products, but each autograd.grad call frees that graph, so the second HVP fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/noahgolmant/pytorch-hessian-eigenthings/issues/13
import torch
import torch.nn as nn


class HVPOperator:
    """Hessian-vector products of a loss w.r.t. the model parameters on one mini-batch."""

    def __init__(self, model, criterion, batch):
        self.model = model
        self.params = [p for p in model.parameters() if p.requires_grad]
        inputs, targets = batch
        loss = criterion(model(inputs), targets)
        grads = torch.autograd.grad(loss, self.params, create_graph=True)
        self.grad_vec = torch.cat([g.reshape(-1) for g in grads])
        self.size = self.grad_vec.numel()

    def apply(self, vec):
        grad_grad = torch.autograd.grad(self.grad_vec, self.params, grad_outputs=vec)  # expect: GG101
        return torch.cat([g.reshape(-1) for g in grad_grad])


def power_iteration(operator, num_iters=10, tol=1e-4):
    vec = torch.randn(operator.size)
    vec = vec / vec.norm()
    eigenvalue = None
    for _ in range(num_iters):
        hv = operator.apply(vec)
        new_eig = torch.dot(hv, vec).item()
        vec = hv / (hv.norm() + 1e-12)
        if eigenvalue is not None and abs(new_eig - eigenvalue) < tol * abs(eigenvalue):
            eigenvalue = new_eig
            break
        eigenvalue = new_eig
    return eigenvalue


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 3))
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.sharpness = []

    def train_epoch(self, batches):
        for inputs, targets in batches:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(inputs), targets)
            loss.backward()
            self.optimizer.step()
        operator = HVPOperator(self.model, self.criterion, batches[0])
        self.sharpness.append(power_iteration(operator))
        return loss.item()


def main():
    torch.manual_seed(0)
    batches = [(torch.randn(16, 6), torch.randint(0, 3, (16,))) for _ in range(4)]
    trainer = Trainer()
    for epoch in range(2):
        loss = trainer.train_epoch(batches)
        print(epoch, loss, trainer.sharpness[-1])


if __name__ == "__main__":
    main()
