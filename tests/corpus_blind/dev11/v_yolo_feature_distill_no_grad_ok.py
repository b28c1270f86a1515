# corpus: YOLOv8-style feature distillation trainer: forward hooks collect teacher and student maps, the teacher runs under torch.no_grad every batch, aligners + student train on det + distill loss; correct
# source: https://github.com/garlic-byte/yolov8_distillation/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv(c1, c2, s=1):
    return nn.Sequential(nn.Conv2d(c1, c2, 3, s, 1, bias=False), nn.BatchNorm2d(c2), nn.SiLU())


class TinyYOLO(nn.Module):
    def __init__(self, width=8, nc=2):
        super().__init__()
        self.model = nn.Sequential(conv(3, width), conv(width, 2 * width, 2), conv(2 * width, 2 * width))
        self.detect = nn.Conv2d(2 * width, nc + 4, 1)

    def forward(self, x):
        return self.detect(self.model(x))


class FeatureHooks:
    def __init__(self, model, layers):
        self.feats = {}
        self.handles = [model.model[int(i)].register_forward_hook(self._save(i)) for i in layers]

    def _save(self, name):
        def hook(module, inp, out):
            self.feats[name] = out
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()


class FeatureLoss(nn.Module):
    def __init__(self, s_channels, t_channels, loss_weight=1.0):
        super().__init__()
        self.align = nn.ModuleList(nn.Conv2d(s, t, 1) for s, t in zip(s_channels, t_channels))
        self.loss_weight = loss_weight

    def forward(self, s_feats, t_feats):
        loss = 0.0
        for align, s, t in zip(self.align, s_feats, t_feats):
            s = align(s)
            loss = loss + F.mse_loss(F.normalize(s, dim=1), F.normalize(t, dim=1))
        return self.loss_weight * loss


def det_loss(pred, targets):
    cls_pred, box_pred = pred[:, :2], pred[:, 2:]
    return F.binary_cross_entropy_with_logits(cls_pred, targets["cls"]) + F.l1_loss(box_pred, targets["box"])


class DistillTrainer:
    layers = ["1", "2"]

    def __init__(self, student, teacher):
        self.model, self.Distillation = student, teacher.eval()
        self.s_hooks = FeatureHooks(self.model, self.layers)
        self.t_hooks = FeatureHooks(self.Distillation, self.layers)
        self.distill_loss = FeatureLoss([16, 16], [32, 32])
        params = list(self.model.parameters()) + list(self.distill_loss.parameters())
        self.optimizer = torch.optim.SGD(params, lr=0.01, momentum=0.937)

    def train_step(self, batch):
        with torch.no_grad():
            self.Distillation(batch["img"])
        pred = self.model(batch["img"])
        t_feats = [self.t_hooks.feats[k] for k in self.layers]
        s_feats = [self.s_hooks.feats[k] for k in self.layers]
        loss_det = det_loss(pred, batch)
        loss_kd = self.distill_loss(s_feats, t_feats)
        loss = loss_det + 0.25 * loss_kd
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss_det.item(), loss_kd.item()


def make_batches(n=3, b=2, hw=8):
    return [{"img": torch.randn(b, 3, hw, hw), "cls": torch.randint(0, 2, (b, 2, hw // 2, hw // 2)).float(),
             "box": torch.rand(b, 4, hw // 2, hw // 2)} for _ in range(n)]


def main():
    torch.manual_seed(0)
    teacher, student = TinyYOLO(width=16), TinyYOLO(width=8)
    trainer = DistillTrainer(student, teacher)
    w0 = student.detect.weight.detach().clone()
    t0 = teacher.detect.weight.detach().clone()
    for epoch in range(2):
        for batch in make_batches():
            ld, lk = trainer.train_step(batch)
        print(f"epoch {epoch}: det {ld:.4f} kd {lk:.4f}")
    print("student changed:", (student.detect.weight - w0).abs().max().item() > 0,
          "teacher untouched:", torch.equal(teacher.detect.weight, t0))


if __name__ == "__main__":
    main()
