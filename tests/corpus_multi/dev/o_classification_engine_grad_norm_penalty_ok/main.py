# corpus: correct: pytorch_cnn_trainer engine.train_step adds an L2 gradient-norm penalty built with autograd.grad(create_graph=True), and its AverageMeters (utils.py) are fed loss.item()/acc.item()
# source: https://github.com/oke-aditya/pytorch_cnn_trainer/pull/8
import torch
import torch.nn as nn

from pytorch_cnn_trainer import engine, model_factory, utils


def main():
    torch.manual_seed(0)
    num_classes = 10
    model = model_factory.create_cnn(num_classes=num_classes)
    train_loader = [(torch.rand(8, 3, 8, 8), torch.randint(0, num_classes, (8,))) for _ in range(3)]
    valid_loader = [(torch.rand(8, 3, 8, 8), torch.randint(0, num_classes, (8,))) for _ in range(2)]
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    early_stopper = utils.EarlyStopping(patience=3)
    history = engine.fit(2, model, train_loader, valid_loader, criterion, "cpu", optimizer,
                         early_stopper=early_stopper, log_interval=2, grad_penalty=True)
    print(history["val"])


if __name__ == "__main__":
    main()
