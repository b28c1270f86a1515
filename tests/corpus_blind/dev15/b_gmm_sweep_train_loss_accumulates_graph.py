# corpus: Gaussian-mixture density-model sweep script that sums the graph-carrying neglog_likelihood of every batch into train_loss for logging, so each epoch keeps all batch graphs alive.
# source: https://github.com/PatrickTourniaire/Negative-Gaussian-Mixture-Model/blob/main/sweep_experiment.py
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset


class ArtificialDataset(Dataset):
    def __init__(self, X):
        super(ArtificialDataset, self).__init__()
        self.X = X

    def __len__(self):
        return self.X.shape[0]

    def __getitem__(self, index):
        return self.X[index]


class GaussianMixture(nn.Module):
    def __init__(self, device, n_clusters, n_dims, init_means, init_sigmas, init_weights=None, sparsity=0.0):
        super(GaussianMixture, self).__init__()
        self.device = device
        self.n_clusters = n_clusters
        self.n_dims = n_dims
        self.means = nn.Parameter(init_means.clone().float())
        self.log_sigmas = nn.Parameter(torch.log(init_sigmas.clone().float()))
        weights = torch.zeros(n_clusters) if init_weights is None else torch.as_tensor(init_weights)
        self.weights = nn.Parameter(weights.float())
        self.sparsity = sparsity

    def log_pdf(self, X):
        X = X.float().unsqueeze(1)
        sigmas = self.log_sigmas.exp()
        z = (X - self.means) / sigmas
        comp = -0.5 * (z ** 2).sum(-1) - self.log_sigmas.sum(-1) - 0.5 * self.n_dims * math.log(2 * math.pi)
        log_w = torch.log_softmax(self.weights, dim=0)
        return torch.logsumexp(comp + log_w, dim=1)

    def neglog_likelihood(self, X):
        return -self.log_pdf(X).mean()

    def forward(self, X, it=None, validate_pdf=False):
        return self.neglog_likelihood(X) + self.sparsity * torch.softmax(self.weights, 0).pow(2).sum()

    def log_means(self, it):
        return self.means.detach().cpu().numpy()


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    device = torch.device("cpu")
    model_config = {'components': 3, 'iterations': 3, 'learning_rate': 1e-2, 'batch_size': 8,
                    'validate_pdf': False, 'sparsity': 0.1}

    train_set = np.random.randn(64, 2)
    val_set = np.random.randn(32, 2)
    tensor_train_set = torch.from_numpy(train_set).to(device)
    tensor_val_set = torch.from_numpy(val_set).to(device)

    model = GaussianMixture(device, n_clusters=model_config['components'], n_dims=2,
                            init_means=torch.randn(model_config['components'], 2),
                            init_sigmas=torch.ones(model_config['components'], 2),
                            sparsity=model_config['sparsity'])
    optimizer = torch.optim.SGD(model.parameters(), lr=model_config['learning_rate'], momentum=0.5)

    traindata = ArtificialDataset(tensor_train_set)
    valdata = ArtificialDataset(tensor_val_set)
    trainloader = torch.utils.data.DataLoader(traindata, batch_size=model_config['batch_size'], shuffle=True)
    valloader = torch.utils.data.DataLoader(valdata, batch_size=model_config['batch_size'], shuffle=True)

    for it in range(model_config['iterations']):
        train_loss = 0
        train_total = 0

        for data in trainloader:
            optimizer.zero_grad()

            loss = model.neglog_likelihood(data)
            it_train_loss = model(data, it, model_config['validate_pdf'])

            train_total += 1
            train_loss += loss  # expect: GG301

            it_train_loss.backward()
            optimizer.step()

        val_loss = 0
        val_total = 0
        with torch.no_grad():
            for data in valloader:
                loss = model.neglog_likelihood(data)
                val_loss += loss
                val_total += 1

        model.log_means(it)
        print({"train": {"loss": float(train_loss / train_total), "it": it},
               "validation": {"loss": float(val_loss / val_total), "it": it}})


if __name__ == '__main__':
    main()
