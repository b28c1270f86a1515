# corpus: single-object localization+classification net backpropagates its box, class and objectness losses one by one with retain_graph=True on all but the last and steps once afterwards (correct)
# source: https://github.com/jeremyfix/deeplearning-lectures/issues/20
import torch
import torch.nn as nn
import torch.nn.functional as F


class LocClsNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.bbox_head = nn.Linear(16, 4)
        self.cls_head = nn.Linear(16, n_classes)
        self.obj_head = nn.Linear(16, 1)

    def forward(self, x):
        h = self.features(x).flatten(1)
        return torch.sigmoid(self.bbox_head(h)), self.cls_head(h), self.obj_head(h).squeeze(-1)


def train_epoch(model, loader, optimizer, alpha_bbox=20.0):
    model.train()
    stats = {"bbox": 0.0, "cls": 0.0, "obj": 0.0, "correct": 0, "n": 0}
    for images, bboxes, labels, has_obj in loader:
        outputs = model(images)
        b_loss = alpha_bbox * F.smooth_l1_loss(outputs[0], bboxes)
        c_loss = F.cross_entropy(outputs[1], labels)
        obj_loss = F.binary_cross_entropy_with_logits(outputs[2], has_obj)

        optimizer.zero_grad()
        b_loss.backward(retain_graph=True)
        c_loss.backward(retain_graph=True)
        obj_loss.backward()
        optimizer.step()

        stats["bbox"] += b_loss.item()
        stats["cls"] += c_loss.item()
        stats["obj"] += obj_loss.item()
        stats["correct"] += (outputs[1].argmax(1) == labels).sum().item()
        stats["n"] += images.shape[0]
    return stats


def make_loader(n=3, bs=4):
    return [(torch.randn(bs, 3, 16, 16), torch.rand(bs, 4), torch.randint(0, 4, (bs,)),
             torch.randint(0, 2, (bs,)).float()) for _ in range(n)]


def main():
    torch.manual_seed(0)
    model = LocClsNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        print(epoch, train_epoch(model, make_loader(), optimizer))


if __name__ == "__main__":
    main()
