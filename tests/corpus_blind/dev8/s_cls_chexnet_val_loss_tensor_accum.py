# corpus: CheXNet-style multi-label trainer whose epochVal runs without no_grad (volatile Variables are a no-op now) and sums the loss tensor into losstensorMean, keeping every validation batch's graph alive until the epoch ends
# source: https://github.com/zoogzog/chexnet/issues/12
import argparse
import time

import torch
import torch.nn as nn


class DenseNet121(nn.Module):
    def __init__(self, classCount, isTrained=False):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.classifier = nn.Sequential(nn.Linear(16 * 16, classCount), nn.Sigmoid())

    def forward(self, x):
        return self.classifier(self.features(x))


class ChexnetTrainer:
    @staticmethod
    def epochTrain(model, dataLoader, optimizer, scheduler, epochMax, classCount, loss):
        model.train()
        for batchID, (input, target) in enumerate(dataLoader):
            varOutput = model(input)
            lossvalue = loss(varOutput, target)
            optimizer.zero_grad()
            lossvalue.backward()
            optimizer.step()

    @staticmethod
    def epochVal(model, dataLoader, optimizer, scheduler, epochMax, classCount, loss):
        model.eval()
        lossVal = 0
        lossValNorm = 0
        losstensorMean = 0
        for i, (input, target) in enumerate(dataLoader):
            varInput = torch.autograd.Variable(input, volatile=True)
            varTarget = torch.autograd.Variable(target, volatile=True)
            varOutput = model(varInput)
            losstensor = loss(varOutput, varTarget)
            losstensorMean += losstensor  # expect: GG301
            lossVal += losstensor.item()
            lossValNorm += 1
        outLoss = lossVal / lossValNorm
        losstensorMean = losstensorMean / lossValNorm
        return outLoss, losstensorMean.item()

    @staticmethod
    def train(nnClassCount, trMaxEpoch, launchTimestamp):
        model = DenseNet121(nnClassCount)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.0001, betas=(0.9, 0.999), eps=1e-08, weight_decay=1e-5)
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.1, patience=5, mode="min")
        loss = torch.nn.BCELoss(reduction="mean")
        dataLoaderTrain = [(torch.randn(4, 1, 16, 16), torch.randint(0, 2, (4, nnClassCount)).float()) for _ in range(3)]
        dataLoaderVal = [(torch.randn(4, 1, 16, 16), torch.randint(0, 2, (4, nnClassCount)).float()) for _ in range(5)]
        lossMIN = 100000
        best_state = None
        for epochID in range(trMaxEpoch):
            ChexnetTrainer.epochTrain(model, dataLoaderTrain, optimizer, scheduler, trMaxEpoch, nnClassCount, loss)
            lossVal, losstensor = ChexnetTrainer.epochVal(model, dataLoaderVal, optimizer, scheduler, trMaxEpoch, nnClassCount, loss)
            scheduler.step(losstensor)
            if lossVal < lossMIN:
                lossMIN = lossVal
                best_state = {"epoch": epochID + 1, "state_dict": {k: v.clone() for k, v in model.state_dict().items()}, "best_loss": lossMIN}
                print("Epoch [" + str(epochID + 1) + "] [save] loss= " + str(lossVal))
            else:
                print("Epoch [" + str(epochID + 1) + "] [----] loss= " + str(lossVal))
        return best_state


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--classes", type=int, default=14)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    ChexnetTrainer.train(args.classes, args.epochs, time.strftime("%d%m%Y-%H%M%S"))


if __name__ == "__main__":
    main()
