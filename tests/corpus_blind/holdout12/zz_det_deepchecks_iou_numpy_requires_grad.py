# corpus: deepchecks-style vision validation suite; the user's DetectionData.infer_on_batch runs the detector without no_grad, so the [x, y, w, h, conf, class] detections require grad, and the per-class IoU grouping used by the mean-IoU/confusion-matrix check calls single_detection.cpu().numpy(), which raises
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/deepchecks/deepchecks/issues/1332
import random
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


def untorchify(item):
    if isinstance(item, torch.Tensor):
        return item.item()
    return item


def jaccard_iou(dt: np.ndarray, gt: np.ndarray):
    x_dt, y_dt, w_dt, h_dt = dt[:4]
    x_gt, y_gt, w_gt, h_gt = gt[1:]
    x2_dt, y2_dt = x_dt + w_dt, y_dt + h_dt
    x2_gt, y2_gt = x_gt + w_gt, y_gt + h_gt
    xi, x2i = max(x_dt, x_gt), min(x2_dt, x2_gt)
    yi, y2i = max(y_dt, y_gt), min(y2_dt, y2_gt)
    iwidth = x2i - xi if x2i > xi else 0
    iheight = y2i - yi if y2i > yi else 0
    intersection = iwidth * iheight
    return intersection / (w_dt * h_dt + w_gt * h_gt - intersection)


def compute_pairwise_ious(detected, ground_truth, iou_func):
    ious = np.zeros((len(detected), len(ground_truth)))
    for g_idx, g in enumerate(ground_truth):
        for d_idx, d in enumerate(detected):
            ious[d_idx, g_idx] = iou_func(d, g)
    return ious


def group_class_detection_label(detected, ground_truth):
    class_bounding_boxes = defaultdict(lambda: {"detected": [], "ground_truth": []})
    for single_detection in detected:
        class_id = untorchify(single_detection[5])
        class_bounding_boxes[class_id]["detected"].append(single_detection.cpu().numpy())  # expect: GG110
    for single_ground_truth in ground_truth:
        class_id = untorchify(single_ground_truth[0])
        class_bounding_boxes[class_id]["ground_truth"].append(single_ground_truth.cpu().numpy())
    return class_bounding_boxes


def compute_bounding_box_class_ious(detected, ground_truth):
    bb_info = group_class_detection_label(detected, ground_truth)
    return {class_id: compute_pairwise_ious(info["detected"], info["ground_truth"], jaccard_iou)
            for class_id, info in bb_info.items()}


class TinyDetector(nn.Module):
    """Predicts a fixed number of boxes per image."""

    def __init__(self, num_boxes=3, num_classes=2):
        super().__init__()
        self.num_boxes, self.num_classes = num_boxes, num_classes
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.box_head = nn.Linear(8, num_boxes * 4)
        self.cls_head = nn.Linear(8, num_boxes * num_classes)

    def forward(self, images):
        f = self.backbone(images)
        boxes = self.box_head(f).view(-1, self.num_boxes, 4).sigmoid() * 32
        logits = self.cls_head(f).view(-1, self.num_boxes, self.num_classes)
        conf, cls = logits.softmax(-1).max(-1)
        return boxes, conf, cls


class DetectionData:
    def __init__(self, data_loader):
        self.data_loader = data_loader

    def batch_to_labels(self, batch):
        return batch[1]

    def infer_on_batch(self, batch, model, device):
        boxes, conf, cls = model(batch[0].to(device))
        # [x, y, w, h, confidence, class] per detection, like the deepchecks format
        return [torch.cat([b, c.unsqueeze(-1), k.unsqueeze(-1).float()], dim=-1) for b, c, k in zip(boxes, conf, cls)]


class Context:
    def __init__(self, train, model, device="cpu"):
        self.train, self.model, self.device = train, model, device


class MeanIoUCheck:
    def initialize_run(self, context):
        self._ious = defaultdict(list)

    def update(self, context, batch):
        dataset = context.train
        predictions = dataset.infer_on_batch(batch, context.model, context.device)
        labels = dataset.batch_to_labels(batch)
        for detected, ground_truth in zip(predictions, labels):
            for class_id, ious in compute_bounding_box_class_ious(detected, ground_truth).items():
                if ious.size:
                    self._ious[class_id].append(ious.max(axis=0).mean())

    def compute(self, context):
        return {k: float(np.mean(v)) for k, v in self._ious.items()}

    def run(self, train, model):
        context = Context(train, model)
        self.initialize_run(context)
        for batch in train.data_loader:
            self.update(context, batch)
        return self.compute(context)


def make_loader(n_batches=2, batch_size=2):
    loader = []
    for _ in range(n_batches):
        images = torch.randn(batch_size, 3, 16, 16)
        labels = [torch.tensor([[0, 2.0, 3.0, 10.0, 8.0], [1, 12.0, 12.0, 6.0, 9.0]]) for _ in range(batch_size)]
        loader.append((images, labels))
    return loader


def main():
    model = TinyDetector()
    model.eval()
    result = MeanIoUCheck().run(DetectionData(make_loader()), model)
    print(result)


if __name__ == "__main__":
    main()
