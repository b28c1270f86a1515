# corpus: DeepSVDD (one-class / autoencoder anomaly detector) whose fit() builds the weight-norm penalty w_d from the parameters once before the epoch loop and adds it to every batch loss, so the second batch's loss.backward() re-enters w_d's freed graph (the reason loss.backward() had been commented out).
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/yzhao062/pyod/issues/606
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_activation_by_name(name):
    return {"relu": nn.ReLU(), "sigmoid": nn.Sigmoid(), "tanh": nn.Tanh()}[name]


class InnerDeepSVDD(nn.Module):
    def __init__(self, n_features, use_ae, hidden_neurons, hidden_activation, output_activation, dropout_rate):
        super().__init__()
        self.n_features = n_features
        self.use_ae = use_ae
        self.hidden_neurons = hidden_neurons or [8, 4]
        self.hidden_activation = hidden_activation
        self.output_activation = output_activation
        self.dropout_rate = dropout_rate
        self.model = self._build_model()

    def _init_c(self, X_norm, eps=0.1):
        intermediate_output = {}
        hook_handle = self.model._modules.get("net_output").register_forward_hook(
            lambda module, input, output: intermediate_output.update({"net_output": output}))
        self.model(X_norm)
        out = intermediate_output["net_output"]
        hook_handle.remove()
        self.c = torch.mean(out, dim=0)
        self.c[(torch.abs(self.c) < eps) & (self.c < 0)] = -eps
        self.c[(torch.abs(self.c) < eps) & (self.c > 0)] = eps

    def _build_model(self):
        layers = nn.Sequential()
        layers.add_module("input_layer", nn.Linear(self.n_features, self.hidden_neurons[0], bias=False))
        layers.add_module("hidden_activation_e0", get_activation_by_name(self.hidden_activation))
        for i in range(1, len(self.hidden_neurons) - 1):
            layers.add_module(f"hidden_layer_e{i}", nn.Linear(self.hidden_neurons[i - 1], self.hidden_neurons[i], bias=False))
            layers.add_module(f"hidden_activation_e{i}", get_activation_by_name(self.hidden_activation))
            layers.add_module(f"hidden_dropout_e{i}", nn.Dropout(self.dropout_rate))
        layers.add_module("net_output", nn.Linear(self.hidden_neurons[-2], self.hidden_neurons[-1], bias=False))
        layers.add_module(f"hidden_activation_e{len(self.hidden_neurons)}", get_activation_by_name(self.hidden_activation))
        if self.use_ae:
            for j in range(len(self.hidden_neurons) - 1, 0, -1):
                layers.add_module(f"hidden_layer_d{j}", nn.Linear(self.hidden_neurons[j], self.hidden_neurons[j - 1], bias=False))
                layers.add_module(f"hidden_activation_d{j}", get_activation_by_name(self.hidden_activation))
            layers.add_module("output_layer", nn.Linear(self.hidden_neurons[0], self.n_features, bias=False))
            layers.add_module("output_activation", get_activation_by_name(self.output_activation))
        return layers

    def forward(self, x):
        return self.model(x)


class DeepSVDD:
    def __init__(self, use_ae=True, hidden_neurons=None, epochs=2, batch_size=16, l2_regularizer=0.1):
        self.use_ae = use_ae
        self.hidden_neurons = hidden_neurons or [8, 4]
        self.epochs = epochs
        self.batch_size = batch_size
        self.l2_regularizer = l2_regularizer
        self.c = None

    def fit(self, X):
        X_norm = (X - X.mean(0)) / (X.std(0) + 1e-8)
        self.n_features_ = X.shape[1]
        self.model_ = InnerDeepSVDD(self.n_features_, use_ae=self.use_ae, hidden_neurons=self.hidden_neurons,
                                    hidden_activation="relu", output_activation="sigmoid", dropout_rate=0.2)
        X_norm = torch.tensor(X_norm, dtype=torch.float32)
        if self.c is None:
            self.c = 0.0
            self.model_._init_c(X_norm)

        dataset = TensorDataset(X_norm, X_norm)
        dataloader = DataLoader(dataset, batch_size=self.batch_size, shuffle=True)
        best_loss = float("inf")
        best_model_dict = None
        optimizer = torch.optim.Adam(self.model_.parameters(), weight_decay=self.l2_regularizer)
        w_d = 1e-6 * sum([torch.linalg.norm(w) for w in self.model_.parameters()])  # expect: GG103

        for epoch in range(self.epochs):
            self.model_.train()
            epoch_loss = 0
            for batch_x, _ in dataloader:
                optimizer.zero_grad()
                outputs = self.model_(batch_x)
                dist = torch.sum((outputs - self.c) ** 2, dim=-1)
                if self.use_ae:
                    loss = torch.mean(dist) + w_d + torch.mean(torch.square(outputs - batch_x))
                else:
                    loss = torch.mean(dist) + w_d
                loss.backward()  # also: GG103
                optimizer.step()
                epoch_loss += loss.item()
                if epoch_loss < best_loss:
                    best_loss = epoch_loss
                    best_model_dict = self.model_.state_dict()
            print(f"Epoch {epoch + 1}/{self.epochs}, Loss: {epoch_loss}")
        self.best_model_dict = best_model_dict
        self.decision_scores_ = self.decision_function(X)
        return self

    def decision_function(self, X):
        X_norm = torch.tensor((X - X.mean(0)) / (X.std(0) + 1e-8), dtype=torch.float32)
        self.model_.eval()
        with torch.no_grad():
            outputs = self.model_(X_norm)
            dist = torch.sum((outputs - self.c) ** 2, dim=-1)
        return dist.numpy()


def main():
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    X = rng.randn(64, 6).astype(np.float32)
    clf = DeepSVDD(use_ae=True, epochs=2, batch_size=16)
    clf.fit(X)
    print("scores", clf.decision_scores_[:4])


if __name__ == "__main__":
    main()
