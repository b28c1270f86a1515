# corpus: YOLO ModelTrainer.train_one_epoch (yolo/solver.py) sums the graph-carrying loss dict returned by yolo/loss_functions.py into a defaultdict of tensors, keeping every batch's graph alive for the epoch
# source: https://github.com/MultimediaTechLab/YOLO/pull/83
import torch

from yolo import YOLO, ModelTrainer, YOLOLoss


def make_loader(num_batches=4, batch_size=2, num_classes=3):
    loader = []
    for _ in range(num_batches):
        images = torch.rand(batch_size, 3, 16, 16)
        cls_target = (torch.rand(batch_size, num_classes, 4, 4) > 0.8).float()
        box_target = torch.rand(batch_size, 4, 4, 4)
        loader.append((batch_size, images, (cls_target, box_target)))
    return loader


def main():
    torch.manual_seed(0)
    model = YOLO(num_classes=3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937)
    trainer = ModelTrainer(model, YOLOLoss(), optimizer)
    trainer.solve(make_loader(), epochs=2)


if __name__ == "__main__":
    main()
