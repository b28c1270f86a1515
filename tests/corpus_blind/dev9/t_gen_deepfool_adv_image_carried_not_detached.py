# corpus: DeepFool attack updates the image with a step built from the logits and carries it into the next iteration without detach, so re-flagging it requires_grad hits a non-leaf
# raises: RuntimeError: you can only change requires_grad flags of leaf variables
# source: https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2
import torch
import torch.nn as nn


class DeepFool:
    def __init__(self, model, steps=10, overshoot=0.02):
        self.model = model
        self.steps = steps
        self.overshoot = overshoot

    def _jacobian(self, fs, image):
        grads = []
        for k in range(fs.numel()):
            g, = torch.autograd.grad(fs[k], image, retain_graph=True)
            grads.append(g)
        return torch.stack(grads)

    def forward(self, images, labels):
        adv_images = images.clone()
        for idx in range(len(images)):
            image = images[idx:idx + 1].clone()
            label = labels[idx]
            for _ in range(self.steps):
                image.requires_grad = True  # also: GG104
                fs = self.model(image)[0]
                pre = fs.argmax()
                if pre != label:
                    break
                ws = self._jacobian(fs, image)
                f_0, w_0 = fs[label], ws[label]
                wrong = [k for k in range(fs.numel()) if k != label]
                f_k = fs[wrong] - f_0
                w_k = ws[wrong] - w_0
                value = torch.abs(f_k) / w_k.flatten(1).norm(dim=1)
                hat_l = value.argmin()
                r = (torch.abs(f_k[hat_l]) + 1e-5) / (w_k[hat_l].norm() ** 2) * w_k[hat_l]
                image = torch.clamp(image + (1 + self.overshoot) * r, 0, 1)  # expect: GG104
            adv_images[idx:idx + 1] = image.detach()
        return adv_images


def evaluate(model, attack, images, labels):
    model.eval()
    adv = attack.forward(images, labels)
    with torch.no_grad():
        clean_acc = (model(images).argmax(1) == labels).float().mean().item()
        adv_acc = (model(adv).argmax(1) == labels).float().mean().item()
    return clean_acc, adv_acc


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))
    for p in model.parameters():
        p.requires_grad_(False)
    images = torch.rand(8, 1, 4, 4)
    with torch.no_grad():
        labels = model(images).argmax(1)
    attack = DeepFool(model, steps=5, overshoot=0.0)
    print(evaluate(model, attack, images, labels))


if __name__ == "__main__":
    main()
