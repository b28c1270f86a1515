# corpus: Detect-and-count trainer (DAVE style) that keeps per-epoch running totals in a dict of losses by adding each batch's graph-carrying criterion outputs (train_losses[k] + main_losses[k] * bs), so every batch's graph stays alive until the epoch ends (the reported training memory leak).
# source: https://github.com/jerpelhan/DAVE/issues/11
import torch
import torch.nn as nn
import torch.nn.functional as F
from time import perf_counter


class ObjectNormalizedL2Loss(nn.Module):
    def forward(self, output, dmap, num_objects):
        return ((output - dmap) ** 2).sum() / num_objects


class DensityCriterion(nn.Module):
    def __init__(self):
        super().__init__()
        self.losses = {"object_normalized_l2": ObjectNormalizedL2Loss()}

    def forward(self, output, dmap, bboxes, num_objects=None):
        num_objects = num_objects if num_objects is not None else dmap.sum().clamp(min=1.0)
        return {k: fn(output, dmap, num_objects) for k, fn in self.losses.items()}


class DetCriterion(nn.Module):
    """FCOS-like box regression on the (left, top, right, bottom) offsets."""

    def forward(self, location, tblr, targets):
        return F.l1_loss(tblr, targets)


class DAVE(nn.Module):
    def __init__(self, ch=8, num_aux=2):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.ReLU())
        self.regression_head = nn.Conv2d(ch, 1, 1)
        self.aux_heads = nn.ModuleList([nn.Conv2d(ch, 1, 1) for _ in range(num_aux)])
        self.box_head = nn.Conv2d(ch, 4, 1)

    def forward(self, img, bboxes):
        feats = self.backbone(img)
        outR = F.softplus(self.regression_head(feats))
        aux_R = [F.softplus(h(feats)) for h in self.aux_heads]
        tblr = F.relu(self.box_head(feats))
        location = torch.stack(torch.meshgrid(torch.arange(img.size(2)), torch.arange(img.size(3)), indexing="ij"))
        return outR, aux_R, tblr, location


def make_loader(n_batches=4, bs=2, hw=8):
    g = torch.Generator().manual_seed(0)
    return [(torch.rand(bs, 3, hw, hw, generator=g), torch.rand(bs, 3, 4, generator=g),
             torch.rand(bs, 1, hw, hw, generator=g), torch.rand(bs, 4, hw, hw, generator=g))
            for _ in range(n_batches)]


def train(epochs=2, n_batches=4):
    torch.manual_seed(0)
    model = DAVE()
    criterion = DensityCriterion()
    aux_criterion = DensityCriterion()
    det_criterion = DetCriterion()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)
    train_loader = make_loader(n_batches)
    len_train = n_batches * 2
    history = []
    for epoch in range(1, epochs + 1):
        start = perf_counter()
        train_losses = {k: torch.tensor(0.0) for k in criterion.losses.keys()}
        model.train()
        for img, bboxes, density_map, targets in train_loader:
            optimizer.zero_grad()
            outR, aux_R, tblr, location = model(img, bboxes)
            main_losses = criterion(outR, density_map, bboxes, None)
            aux_losses = [aux_criterion(aux, density_map, bboxes, None) for aux in aux_R]
            det_loss = det_criterion(location, tblr, targets)
            loss = (
                sum([ml for ml in main_losses.values()]) * 0 +
                sum([al for alls in aux_losses for al in alls.values()]) * 0 +
                det_loss
            )
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            train_losses = {k: train_losses[k] + main_losses[k] * img.size(0) for k in train_losses.keys()}  # expect: GG301
        end = perf_counter()
        print("Epoch", epoch, {k: v.item() / len_train for k, v in train_losses.items()}, f"{end - start:.3f}s")
        history.append(train_losses)
    return history


def main():
    train()


if __name__ == "__main__":
    main()
