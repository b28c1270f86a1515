# corpus: correct: largest-object detection on precomputed frozen features; utils.train backpropagates the bbox and class losses separately, which is fine because the two heads in models.py share no graph node that saves anything
# source: https://github.com/jeremyfix/deeplearning-lectures/issues/14
import torch

import utils
from models import FeatureExtractor, SingleBboxHead


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    num_classes = 5
    raw_loader = []
    for _ in range(3):
        images = torch.rand(4, 3, 16, 16)
        bboxes = torch.rand(4, 4)
        labels = torch.randint(0, num_classes, (4,))
        raw_loader.append((images, bboxes, labels))

    feature_extractor = FeatureExtractor()
    train_data = utils.extract_save_features(raw_loader, feature_extractor, device)
    num_features = train_data[0][0][0].numel()

    model = SingleBboxHead(num_features, num_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        utils.train(model, train_data, optimizer, device)


if __name__ == "__main__":
    main()
