import torch
import torch.nn as nn


class FeatureExtractor(nn.Module):
    """Frozen convolutional body; its features are precomputed once."""

    def __init__(self):
        super().__init__()
        body = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU())
        # We freeze the networks: we will just perform forward passes
        for param in body.parameters():
            param.requires_grad = False
        self.body = body

    def forward(self, x):
        return self.body(x)


class SingleBboxHead(nn.Module):

    def __init__(self, num_features: int, num_classes: int):
        super(SingleBboxHead, self).__init__()
        # cx, cy, width, height of the largest object, all in [0, 1]
        self.head_bbox = nn.Sequential(nn.Dropout(),
                                       nn.Linear(num_features, 32), nn.ReLU(),
                                       nn.BatchNorm1d(32),
                                       nn.Dropout(),
                                       nn.Linear(32, 4), nn.Sigmoid())
        # We output the logits for all the classes. There is no "no-object class"
        self.head_class = nn.Sequential(nn.Linear(num_features, num_classes))

    def forward(self, features):
        # We might get feature maps as input that we need to "linearize"
        features = features.view(features.size()[0], -1)

        y_bbox = self.head_bbox(features)
        y_class = self.head_class(features)
        return y_bbox, y_class
