# corpus: Segmentation trainer with a Lovasz-softmax criterion whose lovasz_softmax_flat returns `probas * 0.` (shape [0, C]) for a batch where every pixel is the ignore label, so loss.backward() gets a non-scalar loss a few iterations in.
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/xiaoyufenfei/Efficient-Segmentation-Networks/issues/7
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


# ----------------------------------------------------------------- lovasz_losses
def lovasz_grad(gt_sorted):
    p = len(gt_sorted)
    gts = gt_sorted.sum()
    intersection = gts - gt_sorted.float().cumsum(0)
    union = gts + (1 - gt_sorted).float().cumsum(0)
    jaccard = 1.0 - intersection / union
    if p > 1:
        jaccard[1:p] = jaccard[1:p] - jaccard[0:-1]
    return jaccard


def mean(values, empty=0):
    values = iter(values)
    try:
        n = 1
        acc = next(values)
    except StopIteration:
        return empty
    for n, v in enumerate(values, 2):
        acc = acc + v
    return acc / n


def flatten_probas(probas, labels, ignore=None):
    B, C, H, W = probas.size()
    probas = probas.permute(0, 2, 3, 1).contiguous().view(-1, C)
    labels = labels.view(-1)
    if ignore is None:
        return probas, labels
    valid = labels != ignore
    vprobas = probas[valid.nonzero().squeeze()]
    vlabels = labels[valid]
    return vprobas, vlabels


def lovasz_softmax_flat(probas, labels, classes="present"):
    if probas.numel() == 0:
        # only void pixels, the gradients should be 0
        return probas * 0.  # expect: GG109
    C = probas.size(1)
    losses = []
    for c in range(C):
        fg = (labels == c).float()
        if classes == "present" and fg.sum() == 0:
            continue
        class_pred = probas[:, c]
        errors = (fg - class_pred).abs()
        errors_sorted, perm = torch.sort(errors, 0, descending=True)
        fg_sorted = fg[perm]
        losses.append(torch.dot(errors_sorted, lovasz_grad(fg_sorted)))
    return mean(losses)


def lovasz_softmax(probas, labels, classes="present", per_image=False, ignore=None):
    return lovasz_softmax_flat(*flatten_probas(probas, labels, ignore), classes=classes)


# ----------------------------------------------------------------- utils/losses/loss.py
class LovaszSoftmax(nn.Module):
    def __init__(self, classes="present", per_image=False, ignore_index=255):
        super().__init__()
        self.smooth = classes
        self.per_image = per_image
        self.ignore_index = ignore_index

    def forward(self, output, target):
        logits = F.softmax(output, dim=1)
        loss = lovasz_softmax(logits, target, ignore=self.ignore_index)
        return loss


# ----------------------------------------------------------------- dataset / model
class TinyCityscapes(Dataset):
    """Random crops; crop 2 falls entirely in the void (ignore) region."""

    def __init__(self, n=5, num_classes=4, size=8, ignore_label=255):
        g = torch.Generator().manual_seed(0)
        self.images = torch.randn(n, 3, size, size, generator=g)
        self.labels = torch.randint(0, num_classes, (n, size, size), generator=g)
        self.labels[2] = ignore_label  # ego-vehicle / unlabeled crop

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx], (8, 8), f"img_{idx}"


class ESNetTiny(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.classifier = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        return self.classifier(self.encoder(x))


def train(args, train_loader, model, criterion, optimizer, epoch):
    model.train()
    epoch_loss = []
    total_batches = len(train_loader)
    for iteration, batch in enumerate(train_loader, 0):
        start_time = time.time()
        images, labels, _, _ = batch
        labels = labels.long()
        output = model(images)
        loss = criterion(output, labels)
        optimizer.zero_grad()
        loss.backward()  # also: GG109
        optimizer.step()
        epoch_loss.append(loss.item())
        time_taken = time.time() - start_time
        print("=====> epoch[%d/%d] iter: (%d/%d) \tloss: %.3f time:%.2f"
              % (epoch + 1, args["max_epochs"], iteration + 1, total_batches, loss.item(), time_taken))
    return sum(epoch_loss) / len(epoch_loss)


def main():
    torch.manual_seed(0)
    args = {"max_epochs": 1, "lr": 1e-2}
    model = ESNetTiny()
    criterion = LovaszSoftmax(ignore_index=255)
    optimizer = torch.optim.Adam(model.parameters(), args["lr"])
    train_loader = DataLoader(TinyCityscapes(), batch_size=1, shuffle=False)
    for epoch in range(args["max_epochs"]):
        lossTr = train(args, train_loader, model, criterion, optimizer, epoch)
        print("epoch", epoch, "train loss", lossTr)


if __name__ == "__main__":
    main()
