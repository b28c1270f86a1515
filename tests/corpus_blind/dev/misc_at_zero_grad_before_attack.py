# corpus: FGSM adversarial training zeroes the optimizer at the top of the step, then the attack's backward fills parameter grads that get added to the training gradient
# source: https://github.com/BorealisAI/advertorch/issues/113
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class GradientSignAttack:
    def __init__(self, predict, eps=0.1):
        self.predict = predict
        self.eps = eps

    def perturb(self, x, y):
        xadv = x.clone().requires_grad_(True)
        loss = F.cross_entropy(self.predict(xadv), y)
        loss.backward()  # also: GG201
        xadv = xadv + self.eps * xadv.grad.sign()
        return xadv.clamp(0.0, 1.0).detach()


class AdversarialTrainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.attack = GradientSignAttack(model)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def compute_gradients(self, x, y):
        self.optimizer.zero_grad()  # also: GG201
        x_adv = self.attack.perturb(x, y)
        adv_loss = F.cross_entropy(self.model(x_adv), y)
        adv_loss.backward()  # expect: GG201
        return x_adv, adv_loss.item()

    def train_step(self, x, y):
        _, loss = self.compute_gradients(x, y)
        self.optimizer.step()
        return loss


def main():
    model = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3))
    trainer = AdversarialTrainer(model)
    data = [(torch.rand(8, 12), torch.randint(0, 3, (8,))) for _ in range(4)]
    for x, y in data:
        trainer.train_step(x, y)

    # ground truth: the stepped gradient is not the adversarial-loss gradient
    x, y = data[0]
    x_adv, _ = trainer.compute_gradients(x, y)
    used = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    F.cross_entropy(model(x_adv), y).backward()
    ref = [p.grad.clone() for p in model.parameters()]
    assert any(not torch.allclose(u, r) for u, r in zip(used, ref))  # ground truth: attack grads leaked in


if __name__ == "__main__":
    main()
