# corpus: FGSM attack wrapper called from an evaluation loop that runs under torch.no_grad(), so the attack's loss has no graph and loss.backward() fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/bethgelab/foolbox/issues/242
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(8 * 14 * 14, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class FGSM:
    def __init__(self, model, epsilon=0.1, bounds=(0.0, 1.0)):
        self.model = model
        self.epsilon = epsilon
        self.bounds = bounds

    def _gradient(self, images, labels):
        images = images.clone().requires_grad_(True)
        logits = self.model(images)
        loss = F.cross_entropy(logits, labels)
        loss.backward()  # expect: GG106
        return images.grad.detach()

    def __call__(self, images, labels):
        grad = self._gradient(images, labels)
        adv = images + self.epsilon * grad.sign()
        return adv.clamp(*self.bounds)


def evaluate(model, attack, batches):
    model.eval()
    correct = adv_correct = total = 0
    with torch.no_grad():
        for images, labels in batches:
            preds = model(images).argmax(1)
            adv_images = attack(images, labels)
            adv_preds = model(adv_images).argmax(1)
            correct += (preds == labels).sum().item()
            adv_correct += (adv_preds == labels).sum().item()
            total += labels.numel()
    return correct / total, adv_correct / total


def main():
    torch.manual_seed(0)
    model = SmallCNN()
    attack = FGSM(model, epsilon=0.1)
    batches = [(torch.rand(4, 1, 28, 28), torch.randint(0, 10, (4,))) for _ in range(2)]
    clean_acc, adv_acc = evaluate(model, attack, batches)
    print(f"clean {clean_acc:.2f} adversarial {adv_acc:.2f}")


if __name__ == "__main__":
    main()
