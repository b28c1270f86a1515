# corpus: YOLO test-time adaptation backpropagates an entropy loss through the Detect head's inference decode, which writes box offsets in place into the sigmoid output that SigmoidBackward needs
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/WongKinYiu/yolov7/issues/1935
import torch
import torch.nn as nn


class Detect(nn.Module):
    def __init__(self, nc=3, ch=(8, 16), anchors=((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119))):
        super().__init__()
        self.nc, self.no, self.na = nc, nc + 5, len(anchors[0]) // 2
        self.stride = [8.0, 16.0]
        self.anchor_grid = [torch.tensor(a, dtype=torch.float32).view(1, -1, 1, 1, 2) for a in anchors]
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in ch)

    @staticmethod
    def _make_grid(nx, ny):
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        return torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()

    def forward(self, feats):
        z, train_out = [], []
        for i, x in enumerate(feats):
            x = self.m[i](x)
            bs, _, ny, nx = x.shape
            x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            train_out.append(x)
            grid = self._make_grid(nx, ny)
            y = x.sigmoid()
            y[..., 0:2] = (y[..., 0:2] * 2.0 - 0.5 + grid) * self.stride[i]  # expect: GG107
            y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]  # also: GG107
            z.append(y.view(bs, -1, self.no))
        return torch.cat(z, 1), train_out


class TinyYolo(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=8, padding=1), nn.SiLU())
        self.down = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.SiLU())
        self.detect = Detect()

    def forward(self, img):
        p3 = self.stem(img)
        p4 = self.down(p3)
        return self.detect([p3, p4])


def entropy_loss(pred):
    cls = pred[..., 5:].softmax(-1)
    return -(cls * torch.log(cls + 1e-8)).sum(-1).mean()


def adapt_single(image, optimizer, model):
    model.train()
    outputs, train_output = model(image)
    loss = entropy_loss(outputs) + outputs[..., 4].mean()
    optimizer.zero_grad()
    loss.backward()  # also: GG107
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = TinyYolo()
    params = [p for n, p in model.named_parameters() if "detect" not in n]
    optimizer = torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    for step in range(3):
        image = torch.rand(1, 3, 64, 64)
        print("tta step", step, adapt_single(image, optimizer, model))


if __name__ == "__main__":
    main()
