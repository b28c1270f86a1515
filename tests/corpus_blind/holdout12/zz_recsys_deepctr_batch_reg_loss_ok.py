# corpus: DeepCTR-Torch (>=0.2.2) style BaseModel only registers (weights, l1, l2) in __init__ and fit() calls get_regularization_loss() inside the batch loop, so each batch's total loss has a fresh regularisation graph and a plain backward() without retain_graph; correct
# source: https://github.com/shenweichen/DeepCTR-Torch/issues/69
import random
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as Data
from torch.utils.data import DataLoader

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class SparseFeat(namedtuple('SparseFeat', ['name', 'vocabulary_size', 'embedding_dim'])):
    pass


class BaseModel(nn.Module):
    def __init__(self, feature_columns, l2_reg_embedding=1e-5, init_std=0.0001, device='cpu'):
        super(BaseModel, self).__init__()
        self.device = device
        self.feature_columns = feature_columns
        self.feature_index = {feat.name: i for i, feat in enumerate(feature_columns)}
        self.regularization_weight = []
        self.embedding_dict = nn.ModuleDict(
            {feat.name: nn.Embedding(feat.vocabulary_size, feat.embedding_dim) for feat in feature_columns})
        for tensor in self.embedding_dict.values():
            nn.init.normal_(tensor.weight, mean=0, std=init_std)
        self.add_regularization_weight(self.embedding_dict.parameters(), l2=l2_reg_embedding)

    def add_regularization_weight(self, weight_list, l1=0.0, l2=0.0):
        if isinstance(weight_list, torch.nn.parameter.Parameter):
            weight_list = [weight_list]
        else:
            weight_list = list(weight_list)
        self.regularization_weight.append((weight_list, l1, l2))

    def get_regularization_loss(self, ):
        total_reg_loss = torch.zeros((1,), device=self.device)
        for weight_list, l1, l2 in self.regularization_weight:
            for w in weight_list:
                if isinstance(w, tuple):
                    parameter = w[1]
                else:
                    parameter = w
                if l1 > 0:
                    total_reg_loss = total_reg_loss + torch.sum(l1 * torch.abs(parameter))
                if l2 > 0:
                    total_reg_loss = total_reg_loss + torch.sum(l2 * torch.square(parameter))
        return total_reg_loss

    def compile(self, optimizer, loss=None, metrics=None):
        self.optim = torch.optim.Adagrad(self.parameters(), lr=0.05) if optimizer == "adagrad" else optimizer
        self.loss_func = F.binary_cross_entropy if loss == "binary_crossentropy" else loss

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1):
        train_tensor_data = Data.TensorDataset(torch.from_numpy(np.concatenate(x, axis=-1)), torch.from_numpy(y))
        model = self.train()
        loss_func = self.loss_func
        optim = self.optim
        train_loader = DataLoader(dataset=train_tensor_data, shuffle=True, batch_size=batch_size)
        for epoch in range(epochs):
            loss_epoch = 0
            total_loss_epoch = 0
            for index, (x_train, y_train) in enumerate(train_loader):
                x = x_train.to(self.device).float()
                y = y_train.to(self.device).float()

                y_pred = model(x).squeeze()

                optim.zero_grad()
                loss = loss_func(y_pred, y.squeeze(), reduction='sum')

                reg_loss = self.get_regularization_loss()

                total_loss = loss + reg_loss

                loss_epoch += loss.item()
                total_loss_epoch += total_loss.item()
                total_loss.backward()
                optim.step()
            if verbose > 0:
                print('Epoch {0}/{1}'.format(epoch + 1, epochs), 'loss: {:.4f}'.format(total_loss_epoch))

    def input_from_feature_columns(self, X):
        return [self.embedding_dict[feat.name](X[:, self.feature_index[feat.name]].long()).unsqueeze(1)
                for feat in self.feature_columns]


class DeepFM(BaseModel):
    def __init__(self, feature_columns, dnn_hidden_units=(16, 8), l2_reg_embedding=1e-5, device='cpu'):
        super(DeepFM, self).__init__(feature_columns, l2_reg_embedding=l2_reg_embedding, device=device)
        emb_dim = feature_columns[0].embedding_dim
        self.linear = nn.Linear(len(feature_columns) * emb_dim, 1)
        dims = [len(feature_columns) * emb_dim] + list(dnn_hidden_units)
        self.dnn = nn.Sequential(*[m for i in range(len(dims) - 1)
                                   for m in (nn.Linear(dims[i], dims[i + 1]), nn.ReLU())])
        self.dnn_linear = nn.Linear(dims[-1], 1, bias=False)

    def forward(self, X):
        sparse_embedding_list = self.input_from_feature_columns(X)
        fm_input = torch.cat(sparse_embedding_list, dim=1)  # [B, F, E]
        square_of_sum = torch.pow(torch.sum(fm_input, dim=1, keepdim=True), 2)
        sum_of_square = torch.sum(fm_input * fm_input, dim=1, keepdim=True)
        fm_logit = 0.5 * torch.sum(square_of_sum - sum_of_square, dim=2).squeeze(1)
        flat = fm_input.flatten(1)
        logit = self.linear(flat).squeeze(1) + fm_logit + self.dnn_linear(self.dnn(flat)).squeeze(1)
        return torch.sigmoid(logit)


def main():
    sparse_features = ['C1', 'C2', 'C3']
    feature_columns = [SparseFeat(feat, vocabulary_size=10, embedding_dim=4) for feat in sparse_features]
    n = 64
    x = [np.random.randint(0, 10, size=(n, 1)) for _ in sparse_features]
    y = np.random.randint(0, 2, size=(n,)).astype(np.float32)
    model = DeepFM(feature_columns, device='cpu')
    model.compile("adagrad", "binary_crossentropy", metrics=["binary_crossentropy"])
    model.fit(x, y, batch_size=16, epochs=2, verbose=1)


if __name__ == "__main__":
    main()
