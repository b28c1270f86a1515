import torch
import torch.nn as nn

DEFAULT_LAYERS = {"0": "conv1_1", "2": "conv2_1", "4": "conv3_1", "5": "conv3_2"}
CONTENT_LAYER = "conv3_2"


def build_vgg():
    """Small VGG-like feature extractor standing in for models.vgg19(pretrained=True).features."""
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, 1, 1),   # 0 conv1_1
        nn.ReLU(),
        nn.Conv2d(8, 16, 3, 1, 1),  # 2 conv2_1
        nn.ReLU(),
        nn.Conv2d(16, 16, 3, 1, 1),  # 4 conv3_1
        nn.Conv2d(16, 16, 3, 1, 1),  # 5 conv3_2
    )


def get_features(image, model, layers=None):
    """Return a dict {layer name: feature map} for the image."""
    if layers is None:
        layers = DEFAULT_LAYERS
    features = {}
    x = image
    for name, layer in model._modules.items():
        x = layer(x)
        if name in layers:
            features[layers[name]] = x
    return features


def get_grim_matrix(tensor):
    b, c, h, w = tensor.size()
    tensor = tensor.view(b * c, h * w)
    return torch.mm(tensor, tensor.t())


def compute_targets(vgg, content_image, style_image):
    content_features = get_features(content_image, vgg)
    style_features = get_features(style_image, vgg)
    style_gram_matrixs = {layer: get_grim_matrix(style_features[layer]) for layer in style_features}
    return {"content": content_features, "style_grams": style_gram_matrixs}
