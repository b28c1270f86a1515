import torch
import torch.nn as nn
import torch.nn.functional as F


class ResnetEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_ch_enc = [8, 16]
        self.layer1 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(inplace=True))
        self.layer2 = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU(inplace=True))

    def forward(self, input_image):
        x = (input_image - 0.45) / 0.225
        f1 = self.layer1(x)
        f2 = self.layer2(f1)
        return [f1, f2]


class DepthDecoder(nn.Module):
    def __init__(self, num_ch_enc, scales=(0, 1)):
        super().__init__()
        self.scales = scales
        self.upconv = nn.Conv2d(num_ch_enc[1], num_ch_enc[0], 3, padding=1)
        self.dispconv = nn.ModuleDict({str(s): nn.Conv2d(num_ch_enc[0], 1, 3, padding=1) for s in scales})

    def forward(self, input_features):
        f1, f2 = input_features
        x = F.interpolate(F.elu(self.upconv(f2)), scale_factor=2, mode="nearest") + f1
        outputs = {}
        for s in self.scales:
            y = x if s == 1 else F.interpolate(x, scale_factor=2, mode="nearest")
            outputs[("disp", s)] = torch.sigmoid(self.dispconv[str(s)](y))
        return outputs
