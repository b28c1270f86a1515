# corpus: face-embedding fine-tuning with an AM-Softmax margin head (AMSoftmax shape) that, like the original Caffe layer, "directly changes the weights in the forward pass": after the normalized weight has been used for the cosine logits it copies it back into self.weight.data, overwriting the tensor that F.normalize saved for backward, so the head weight gets a silently wrong gradient
# source: https://github.com/happynear/AMSoftmax/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F


class AMSoftmaxHead(nn.Module):
    def __init__(self, in_features=16, n_classes=6, s=30.0, m=0.35):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_classes, in_features))
        self.s, self.m = s, m

    def forward(self, feats, labels):
        w_norm = F.normalize(self.weight, dim=1)
        cos_theta = F.linear(F.normalize(feats, dim=1), w_norm)
        self.weight.data.copy_(w_norm.data)  # expect: GG203
        one_hot = F.one_hot(labels, cos_theta.size(1)).float()
        logits = self.s * (cos_theta - self.m * one_hot)
        return logits, cos_theta


class Backbone(nn.Module):
    def __init__(self, in_dim=32, embed=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.PReLU(), nn.Linear(64, embed), nn.BatchNorm1d(embed))

    def forward(self, x):
        return self.net(x)


class FaceTrainer:
    def __init__(self, backbone, head, lr=0.05):
        self.backbone, self.head = backbone, head
        self.optimizer = torch.optim.SGD(list(backbone.parameters()) + list(head.parameters()), lr=lr, momentum=0.9)

    def train_step(self, images, labels):
        feats = self.backbone(images)
        logits, cos_theta = self.head(feats, labels)
        loss = F.cross_entropy(logits, labels)
        self.optimizer.zero_grad()
        loss.backward()  # also: GG203
        self.optimizer.step()
        acc = (cos_theta.argmax(1) == labels).float().mean().item()
        return loss.item(), acc

    def fit(self, loader, epochs=2):
        for epoch in range(epochs):
            stats = [self.train_step(x, y) for x, y in loader]
            print(f"epoch {epoch} loss {sum(s[0] for s in stats) / len(stats):.4f} "
                  f"acc {sum(s[1] for s in stats) / len(stats):.3f}")


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(12, 32), torch.randint(0, 6, (12,))) for _ in range(4)]
    FaceTrainer(Backbone(), AMSoftmaxHead()).fit(loader)


if __name__ == "__main__":
    main()
