# corpus: A Keras-style stateful LSTM layer keeps its carry in state buffers and writes the last step back with copy_ right after the forward pass, which bumps the version of the initial state that the recurrent matmul saved, so backward fails.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/keras-team/keras/issues/20875
import numpy as np
import torch
import torch.nn as nn


def generate_time_series_data(batch_size, time_steps, num_features):
    rng = np.random.default_rng(0)
    while True:
        x = rng.standard_normal((batch_size, time_steps, num_features)).astype("float32")
        y = x.sum(axis=(1, 2), keepdims=False).reshape(batch_size, 1).astype("float32")
        yield torch.from_numpy(x), torch.from_numpy(y)


class StatefulLSTM(nn.Module):
    def __init__(self, input_dim, units, batch_size):
        super().__init__()
        self.units = units
        self.kernel = nn.Parameter(torch.randn(input_dim, units * 4) * 0.1)
        self.recurrent_kernel = nn.Parameter(torch.randn(units, units * 4) * 0.1)
        self.bias = nn.Parameter(torch.zeros(units * 4))
        self.register_buffer("state_h", torch.zeros(batch_size, units))
        self.register_buffer("state_c", torch.zeros(batch_size, units))

    def cell(self, inputs, h_tm1, c_tm1):
        z = inputs @ self.kernel
        z = z + h_tm1 @ self.recurrent_kernel
        z = z + self.bias
        z0, z1, z2, z3 = torch.split(z, self.units, dim=1)
        i = torch.sigmoid(z0)
        f = torch.sigmoid(z1)
        c = f * c_tm1 + i * torch.tanh(z2)
        o = torch.sigmoid(z3)
        h = o * torch.tanh(c)
        return h, c

    def inner_loop(self, sequences, initial_state):
        h, c = initial_state
        for t in range(sequences.shape[1]):
            h, c = self.cell(sequences[:, t, :], h, c)
        return h, c

    def forward(self, sequences):
        last_h, last_c = self.inner_loop(sequences, (self.state_h, self.state_c))
        self.state_h.copy_(last_h)  # expect: GG107
        self.state_c.copy_(last_c)  # also: GG107
        return last_h

    def reset_states(self):
        with torch.no_grad():
            self.state_h.zero_()
            self.state_c.zero_()


class Sequential(nn.Module):
    def __init__(self, num_features, units, batch_size):
        super().__init__()
        self.lstm = StatefulLSTM(num_features, units, batch_size)
        self.dense = nn.Linear(units, 1)

    def forward(self, x):
        return self.dense(self.lstm(x))


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.loss_fn = nn.MSELoss()
        self.history = {"loss": []}

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        y_pred = self.model(x)
        loss = self.loss_fn(y_pred, y)
        loss.backward()  # also: GG107
        self.optimizer.step()
        return {"loss": loss.item()}

    def fit(self, generator, steps_per_epoch, epochs):
        for epoch in range(epochs):
            logs = {}
            for _ in range(steps_per_epoch):
                x, y = next(generator)
                logs = self.train_step(x, y)
            self.history["loss"].append(logs["loss"])
            self.model.lstm.reset_states()
        return self.history


def main():
    torch.manual_seed(0)
    batch_size, time_steps, num_features = 8, 5, 3
    model = Sequential(num_features, units=6, batch_size=batch_size)
    trainer = Trainer(model)
    gen = generate_time_series_data(batch_size, time_steps, num_features)
    history = trainer.fit(gen, steps_per_epoch=3, epochs=2)
    print(history)


if __name__ == "__main__":
    main()
