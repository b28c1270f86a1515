# corpus: Bonsai tree classifier trainer: the IHT phase passes the live nn.Parameters (not their .data) to hard_threshold, whose np.copy converts a tensor that requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/microsoft/EdgeML/issues/119
import sys

import numpy as np
import torch
import torch.nn as nn


def hard_threshold(A, s):
    """Keep the top s fraction of entries of A (by magnitude), zero the rest."""
    A_ = np.copy(A)  # also: GG110
    A_ = A_.ravel()
    if len(A_) > 0:
        th = np.percentile(np.abs(A_), (1 - s) * 100.0, method="higher")
        A_[np.abs(A_) < th] = 0.0
    A_ = A_.reshape(A.shape)
    return torch.tensor(A_, dtype=torch.float32)


def copy_support(src, dest):
    support = torch.nonzero(src, as_tuple=True)
    dest_ = dest.clone()
    dest = torch.zeros_like(dest)
    dest[support] = dest_[support]
    return dest


def cross_entropy_loss(logits, labels):
    return nn.functional.cross_entropy(logits, labels.argmax(dim=1))


class Bonsai(nn.Module):
    """Depth-1 Bonsai tree: a sparse projection Z and per-node predictors W, V with branching params T."""

    def __init__(self, num_classes, data_dim, proj_dim, tree_depth=1, sigma=1.0):
        super().__init__()
        self.numClasses = num_classes
        self.dataDimension = data_dim
        self.projectionDimension = proj_dim
        self.treeDepth = tree_depth
        self.sigma = sigma
        self.internalNodes = 2 ** tree_depth - 1
        self.totalNodes = 2 * self.internalNodes + 1
        self.Z = nn.Parameter(torch.randn(proj_dim, data_dim) * 0.1)
        self.W = nn.Parameter(torch.randn(num_classes * self.totalNodes, proj_dim) * 0.1)
        self.V = nn.Parameter(torch.randn(num_classes * self.totalNodes, proj_dim) * 0.1)
        self.T = nn.Parameter(torch.randn(self.internalNodes, proj_dim) * 0.1)

    def forward(self, X, sigmaI):
        X_ = torch.matmul(self.Z, X.t()) / self.projectionDimension  # proj x N
        W_ = self.W.view(self.totalNodes, self.numClasses, -1)
        V_ = self.V.view(self.totalNodes, self.numClasses, -1)
        node_score = torch.einsum("kcp,pn->knc", W_, X_) * torch.tanh(self.sigma * torch.einsum("kcp,pn->knc", V_, X_))
        branch = torch.sigmoid(sigmaI * torch.matmul(self.T, X_)).t()  # N x internal
        path = torch.cat([torch.ones_like(branch), branch, 1 - branch], dim=1)  # N x totalNodes
        score = (node_score * path.t().unsqueeze(-1)).sum(dim=0)
        return score, X_


class BonsaiTrainer:
    def __init__(self, bonsaiObj, lW, lT, lV, lZ, sW, sT, sV, sZ, learningRate, outFile=None):
        self.bonsaiObj = bonsaiObj
        self.lW, self.lV, self.lT, self.lZ = lW, lV, lT, lZ
        self.sparsity = {"W": sW, "V": sV, "Z": sZ, "T": sT}
        self.learningRate = learningRate
        self.outFile = outFile if outFile is not None else sys.stdout
        self.optimizer = torch.optim.Adam(self.bonsaiObj.parameters(), lr=self.learningRate)
        self.thrsd = {}

    def loss(self, logits, labels):
        regLoss = 0.5 * (self.lZ * (torch.norm(self.bonsaiObj.Z) ** 2) +
                         self.lW * (torch.norm(self.bonsaiObj.W) ** 2) +
                         self.lV * (torch.norm(self.bonsaiObj.V) ** 2) +
                         self.lT * (torch.norm(self.bonsaiObj.T)) ** 2)
        marginLoss = cross_entropy_loss(logits, labels)
        return marginLoss + regLoss, marginLoss, regLoss

    def accuracy(self, logits, labels):
        return torch.mean((logits.argmax(dim=1) == labels.argmax(dim=1)).float())

    def runHardThrsd(self):
        for name, sparsity in self.sparsity.items():
            param = getattr(self.bonsaiObj, name)
            thrsd = hard_threshold(param.cpu(), sparsity)  # expect: GG110
            param.data = thrsd
            self.thrsd[name] = thrsd.detach().clone()

    def runSparseTraining(self):
        for name in self.sparsity:
            param = getattr(self.bonsaiObj, name)
            param.data = copy_support(self.thrsd[name], param.data)

    def train(self, batchSize, totalEpochs, Xtrain, Ytrain):
        numIters = Xtrain.shape[0] // batchSize
        totalBatches = numIters * totalEpochs
        trimlevel = 3
        counter = 0
        ihtDone = 0
        sigmaI = 1.0
        for i in range(totalEpochs):
            trainAcc, trainLoss = 0.0, 0.0
            for j in range(numIters):
                batchX = Xtrain[j * batchSize:(j + 1) * batchSize]
                batchY = Ytrain[j * batchSize:(j + 1) * batchSize]
                self.optimizer.zero_grad()
                logits, _ = self.bonsaiObj(batchX, sigmaI)
                batchLoss, _, _ = self.loss(logits, batchY)
                batchAcc = self.accuracy(logits, batchY)
                batchLoss.backward()
                self.optimizer.step()
                trainAcc += batchAcc.item()
                trainLoss += batchLoss.item()
                if counter >= totalBatches // 3 and counter < 2 * totalBatches // 3 and counter % trimlevel == 0:
                    self.runHardThrsd()
                    ihtDone = 1
                elif ihtDone == 1 and counter >= totalBatches // 3:
                    self.runSparseTraining()
                counter += 1
            print(f"Epoch {i}: train loss {trainLoss / numIters:.4f}, train acc {trainAcc / numIters:.3f}",
                  file=self.outFile)


def main():
    torch.manual_seed(0)
    num_classes, data_dim = 3, 12
    Xtrain = torch.randn(60, data_dim)
    Ytrain = nn.functional.one_hot(torch.randint(0, num_classes, (60,)), num_classes).float()
    bonsai = Bonsai(num_classes, data_dim, proj_dim=6)
    trainer = BonsaiTrainer(bonsai, lW=1e-3, lT=1e-3, lV=1e-3, lZ=1e-4,
                            sW=0.5, sT=0.5, sV=0.5, sZ=0.4, learningRate=0.01)
    trainer.train(batchSize=10, totalEpochs=3, Xtrain=Xtrain, Ytrain=Ytrain)


if __name__ == "__main__":
    main()
