# corpus: robustness evaluation wraps the whole test loop in torch.no_grad(), so the L-inf PGD adversary's loss.backward() inside perturb() has no graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/BorealisAI/advertorch/issues/79
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LinfPGDAttack:
    def __init__(self, predict, eps=0.1, nb_iter=5, eps_iter=0.02, clip_min=0.0, clip_max=1.0):
        self.predict = predict
        self.eps = eps
        self.nb_iter = nb_iter
        self.eps_iter = eps_iter
        self.clip_min = clip_min
        self.clip_max = clip_max

    def perturb(self, x, y):
        delta = torch.zeros_like(x).uniform_(-self.eps, self.eps)
        delta.requires_grad_()
        for _ in range(self.nb_iter):
            outputs = self.predict(x + delta)
            loss = F.cross_entropy(outputs, y)
            loss.backward()  # also: GG106
            grad_sign = delta.grad.detach().sign()
            delta.data = (delta.data + self.eps_iter * grad_sign).clamp(-self.eps, self.eps)
            delta.data = (x + delta.data).clamp(self.clip_min, self.clip_max) - x
            delta.grad.zero_()
        return (x + delta).detach()


def build_net():
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 32), nn.ReLU(), nn.Linear(32, 10))


def test(net, adversary, testloader):
    net.eval()
    correct = total = 0
    with torch.no_grad():  # expect: GG106
        for inputs, targets in testloader:
            adv_untargeted = adversary.perturb(inputs, targets)
            outputs = net(adv_untargeted)
            correct += (outputs.argmax(1) == targets).sum().item()
            total += targets.numel()
    return correct / total


def main():
    net = build_net()
    adversary = LinfPGDAttack(net)
    testloader = [(torch.rand(4, 3, 8, 8), torch.randint(0, 10, (4,))) for _ in range(2)]
    print("robust acc", test(net, adversary, testloader))


if __name__ == "__main__":
    main()
