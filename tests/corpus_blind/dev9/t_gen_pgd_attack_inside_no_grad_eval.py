# corpus: robustness evaluation wraps the whole test loop in torch.no_grad() and calls a white-box PGD attack inside it, so the attack's loss has no graph and its backward fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/498
import torch
import torch.nn as nn
import torch.nn.functional as F


class ProjectedGradientDescent:
    def __init__(self, model, eps=0.3, eps_step=0.05, max_iter=5):
        self.model = model
        self.eps = eps
        self.eps_step = eps_step
        self.max_iter = max_iter

    def _compute_perturbation(self, x_adv, y):
        x_adv = x_adv.clone().requires_grad_(True)
        loss = F.cross_entropy(self.model(x_adv), y)
        loss.backward()  # also: GG106
        return x_adv.grad.sign()

    def generate(self, x, y):
        x_adv = x + torch.empty_like(x).uniform_(-self.eps, self.eps)
        for _ in range(self.max_iter):
            grad_sign = self._compute_perturbation(x_adv, y)
            x_adv = x_adv.detach() + self.eps_step * grad_sign
            x_adv = torch.min(torch.max(x_adv, x - self.eps), x + self.eps).clamp(0.0, 1.0)
        return x_adv.detach()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(F.relu(self.conv(x)).flatten(1))


def make_loader(n_batches, batch_size):
    return [(torch.rand(batch_size, 1, 8, 8), torch.randint(0, 10, (batch_size,))) for _ in range(n_batches)]


def evaluate_robust(model, attack, loader):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():  # expect: GG106
        for inputs, targets in loader:
            adv_inputs = attack.generate(inputs, targets)
            outputs = model(adv_inputs)
            correct += (outputs.argmax(1) == targets).sum().item()
            total += targets.size(0)
    return correct / total


def main():
    torch.manual_seed(0)
    model = Net()
    attack = ProjectedGradientDescent(model)
    loader = make_loader(3, 8)
    print("robust accuracy", evaluate_robust(model, attack, loader))


if __name__ == "__main__":
    main()
