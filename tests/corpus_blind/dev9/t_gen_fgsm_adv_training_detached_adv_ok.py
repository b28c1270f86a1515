# corpus: adversarial training with an FGSM attack that backprops into the model, returns xadv.detach(), and the trainer zeroes grads after the attack and before the training backward (correct)
# source: https://github.com/BorealisAI/advertorch/issues/49
import torch
import torch.nn as nn
import torch.nn.functional as F


class GradientSignAttack:
    def __init__(self, predict, loss_fn=None, eps=0.1, clip_min=0.0, clip_max=1.0, targeted=False):
        self.predict = predict
        self.loss_fn = loss_fn or nn.CrossEntropyLoss(reduction="sum")
        self.eps = eps
        self.clip_min, self.clip_max = clip_min, clip_max
        self.targeted = targeted

    def perturb(self, x, y):
        xadv = x.clone().requires_grad_()
        outputs = self.predict(xadv)
        loss = self.loss_fn(outputs, y)
        if self.targeted:
            loss = -loss
        loss.backward()
        grad_sign = xadv.grad.detach().sign()
        xadv = xadv + self.eps * grad_sign
        xadv = torch.clamp(xadv, self.clip_min, self.clip_max)
        return xadv.detach()


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.fc1 = nn.Linear(4 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class AdvTrainer:
    def __init__(self, model, adversary, lr=0.05, mix=0.5):
        self.model = model
        self.adversary = adversary
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.mix = mix

    def train_epoch(self, loader):
        self.model.train()
        total, n = 0.0, 0
        for data, target in loader:
            adv_data = self.adversary.perturb(data, target)
            self.optimizer.zero_grad()
            clean_loss = F.cross_entropy(self.model(data), target)
            adv_loss = F.cross_entropy(self.model(adv_data), target)
            loss = (1 - self.mix) * clean_loss + self.mix * adv_loss
            loss.backward()
            self.optimizer.step()
            total += loss.item() * data.size(0)
            n += data.size(0)
        return total / n


def main():
    torch.manual_seed(0)
    model = LeNet5()
    adversary = GradientSignAttack(model, eps=0.1)
    trainer = AdvTrainer(model, adversary)
    loader = [(torch.rand(16, 1, 8, 8), torch.randint(0, 10, (16,))) for _ in range(4)]
    for epoch in range(2):
        print(epoch, trainer.train_epoch(loader))


if __name__ == "__main__":
    main()
