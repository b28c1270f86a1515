import torch.nn as nn


class Vgg16(nn.Module):
    """Small stand-in for the Lua-converted VGG16: returns relu1_2, relu2_2, relu3_3 features."""

    def __init__(self):
        super().__init__()
        self.conv1_1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv1_2 = nn.Conv2d(8, 8, 3, padding=1)
        self.conv2_1 = nn.Conv2d(8, 16, 3, padding=1)
        self.conv2_2 = nn.Conv2d(16, 16, 3, padding=1)
        self.conv3_1 = nn.Conv2d(16, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.relu = nn.ReLU()

    def forward(self, X):
        h = self.relu(self.conv1_1(X))
        h = self.relu(self.conv1_2(h))
        relu1_2 = h
        h = self.pool(h)
        h = self.relu(self.conv2_1(h))
        h = self.relu(self.conv2_2(h))
        relu2_2 = h
        h = self.pool(h)
        h = self.relu(self.conv3_1(h))
        relu3_3 = h
        return [relu1_2, relu2_2, relu3_3]
