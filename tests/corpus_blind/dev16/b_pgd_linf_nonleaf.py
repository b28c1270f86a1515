# corpus: PGD_Linf attack class whose projection step keeps the moved image without .detach(), so in the next iteration the adversarial image is a non-leaf still carrying the previous step's graph and setting requires_grad on it fails.
# raises: RuntimeError: you can only change requires_grad flags of leaf variables
# source: https://github.com/cs-giung/course-dl-TP/blob/451ae45e2e8acb7f15d322c4abef3a45c17c1881/src/pgd.py
import torch
import torch.nn as nn


class VGG(nn.Module):
    """Tiny VGG-style classifier used as the attacked model."""

    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class PGD_Linf():

    def __init__(self, model, epsilon=8 * 4 / 255, step_size=4 / 255, num_steps=5, random_start=True):
        self.model = model
        self.epsilon = epsilon
        self.step_size = step_size
        self.num_steps = num_steps
        self.random_start = random_start
        self.criterion = nn.CrossEntropyLoss()

    def perturb(self, images, labels):
        if self.random_start:
            x = images + (torch.rand_like(images) - 0.5) * 2 * self.epsilon
            x = torch.clamp(x, min=-2, max=2)
        else:
            x = images.clone()

        for _ in range(self.num_steps):
            x.requires_grad = True  # also: GG104
            outputs = self.model(x)
            self.model.zero_grad()
            loss = self.criterion(outputs, labels)
            loss.backward()
            x = x + self.step_size * x.grad.sign()
            r = torch.clamp(x - images, min=-self.epsilon, max=self.epsilon)  # expect: GG104
            x = torch.clamp(images + r, min=-2, max=2)

        return x.detach()


def evaluate(model, attacker, loader):
    model.eval()
    correct, adv_correct, total = 0, 0, 0
    for images, labels in loader:
        with torch.no_grad():
            correct += (model(images).argmax(1) == labels).sum().item()
        adv_images = attacker.perturb(images, labels)
        with torch.no_grad():
            adv_correct += (model(adv_images).argmax(1) == labels).sum().item()
        total += labels.size(0)
    return correct / total, adv_correct / total


def main():
    torch.manual_seed(0)
    model = VGG()
    loader = [(torch.randn(4, 3, 8, 8), torch.randint(0, 4, (4,))) for _ in range(2)]
    attacker = PGD_Linf(model)
    clean_acc, adv_acc = evaluate(model, attacker, loader)
    print(f"clean acc {clean_acc:.2f}  adversarial acc {adv_acc:.2f}")


if __name__ == "__main__":
    main()
