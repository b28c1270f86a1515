import torch.nn as nn


class ImageClassifier(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone = backbone
        self.head = head

    def extract_feat(self, img):
        return self.backbone(img)

    def forward_train(self, img, gt_label):
        x = self.extract_feat(img)
        return self.head.forward_train(x, gt_label)

    def train_step(self, data, optimizer=None):
        losses = self.forward_train(**data)
        loss = sum(v for k, v in losses.items() if "loss" in k)
        log_vars = {k: v.item() for k, v in losses.items()}
        return dict(loss=loss, log_vars=log_vars, num_samples=len(data["img"]))
