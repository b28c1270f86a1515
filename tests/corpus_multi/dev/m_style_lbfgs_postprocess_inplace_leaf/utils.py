import torch

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)


def preprocess(img_hwc):
    """HWC float image in [0, 1] -> normalized CHW tensor scaled by 255 (ToTensor, Normalize, mul_(255))."""
    x = torch.as_tensor(img_hwc, dtype=torch.float32).permute(2, 0, 1).contiguous()
    x = (x - MEAN) / STD
    return x.mul_(255)


def postprocess(x):
    """Inverse of preprocess, for display."""
    x = x.mul_(1.0 / 255)  # expect: GG108
    return x * STD + MEAN


class Report:
    def __init__(self, n):
        self.n = n
        self.records = []

    def record(self, pos, **metrics):
        self.records.append((pos, metrics))
