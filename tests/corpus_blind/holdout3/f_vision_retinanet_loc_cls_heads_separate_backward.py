# corpus: RetinaNet self-test backpropagates the box-regression head and the classification head of one shared FPN forward with two separate backward calls; the first frees the shared FPN graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/kuangliu/pytorch-retinanet/issues/38
import torch
import torch.nn as nn
import torch.nn.functional as F


class FPN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(32, 32, kernel_size=3, stride=2, padding=1)
        self.latlayer1 = nn.Conv2d(32, 32, kernel_size=1)
        self.latlayer2 = nn.Conv2d(32, 32, kernel_size=1)
        self.toplayer = nn.Conv2d(32, 32, kernel_size=3, padding=1)

    def _upsample_add(self, x, y):
        _, _, H, W = y.size()
        return F.interpolate(x, size=(H, W), mode="nearest") + y

    def forward(self, x):
        c1 = F.relu(self.bn1(self.conv1(x)))
        c2 = F.relu(self.conv2(c1))
        c3 = F.relu(self.conv3(c2))
        p3 = self.latlayer1(c3)
        p2 = self._upsample_add(p3, self.latlayer2(c2))
        p2 = self.toplayer(p2)
        return p2, p3


class RetinaNet(nn.Module):
    num_anchors = 9

    def __init__(self, num_classes=4):
        super().__init__()
        self.fpn = FPN()
        self.num_classes = num_classes
        self.loc_head = self._make_head(self.num_anchors * 4)
        self.cls_head = self._make_head(self.num_anchors * self.num_classes)

    def forward(self, x):
        fms = self.fpn(x)
        loc_preds, cls_preds = [], []
        for fm in fms:
            loc_pred = self.loc_head(fm)
            cls_pred = self.cls_head(fm)
            loc_pred = loc_pred.permute(0, 2, 3, 1).contiguous().view(x.size(0), -1, 4)
            cls_pred = cls_pred.permute(0, 2, 3, 1).contiguous().view(x.size(0), -1, self.num_classes)
            loc_preds.append(loc_pred)
            cls_preds.append(cls_pred)
        return torch.cat(loc_preds, 1), torch.cat(cls_preds, 1)

    def _make_head(self, out_planes):
        layers = []
        for _ in range(2):
            layers.append(nn.Conv2d(32, 32, kernel_size=3, stride=1, padding=1))
            layers.append(nn.ReLU(True))
        layers.append(nn.Conv2d(32, out_planes, kernel_size=3, stride=1, padding=1))
        return nn.Sequential(*layers)

    def freeze_bn(self):
        for layer in self.modules():
            if isinstance(layer, nn.BatchNorm2d):
                layer.eval()


def test():
    net = RetinaNet()
    loc_preds, cls_preds = net(torch.randn(2, 3, 32, 32))
    print(loc_preds.size())
    print(cls_preds.size())
    loc_grads = torch.randn(loc_preds.size())
    cls_grads = torch.randn(cls_preds.size())
    loc_preds.backward(loc_grads)  # expect: GG102
    cls_preds.backward(cls_grads)  # also: GG102


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    test()
