# corpus: RWKV blocks (transformers RwkvSelfAttention/RwkvFeedForward shape) stepped one token at a time with a cached state to forecast a time series like an LSTM; the blocks write the new shift/wkv state into the state tensors in place after the time-mix already read (and saved) views of them, so backward fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/huggingface/transformers/issues/31413
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class RwkvConfig:
    hidden_size: int = 16
    num_hidden_layers: int = 2
    intermediate_size: int = 32


class RwkvSelfAttention(nn.Module):
    def __init__(self, config, layer_id):
        super().__init__()
        h = config.hidden_size
        self.layer_id = layer_id
        self.time_decay = nn.Parameter(torch.linspace(-2.0, 1.0, h))
        self.time_mix_key = nn.Parameter(torch.full((1, 1, h), 0.5))
        self.time_mix_value = nn.Parameter(torch.full((1, 1, h), 0.6))
        self.key = nn.Linear(h, h, bias=False)
        self.value = nn.Linear(h, h, bias=False)
        self.output = nn.Linear(h, h, bias=False)

    def forward(self, hidden, state):
        shifted = state[1][:, :, self.layer_id].unsqueeze(1)
        key = self.key(hidden * self.time_mix_key + shifted * (1 - self.time_mix_key))
        value = self.value(hidden * self.time_mix_value + shifted * (1 - self.time_mix_value))
        state[1][:, :, self.layer_id] = hidden[:, -1]  # expect: GG107
        num_state, den_state = state[2][:, :, self.layer_id], state[3][:, :, self.layer_id]
        decay = torch.exp(-torch.exp(self.time_decay))
        w = torch.exp(key[:, -1])
        num_state = decay * num_state + w * value[:, -1]
        den_state = decay * den_state + w
        state[2][:, :, self.layer_id] = num_state  # also: GG107
        state[3][:, :, self.layer_id] = den_state  # also: GG107
        return self.output((num_state / den_state).unsqueeze(1)), state


class RwkvFeedForward(nn.Module):
    def __init__(self, config, layer_id):
        super().__init__()
        self.layer_id = layer_id
        self.time_mix_key = nn.Parameter(torch.full((1, 1, config.hidden_size), 0.5))
        self.key = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.value = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, hidden, state):
        shifted = state[0][:, :, self.layer_id].unsqueeze(1)
        key = hidden * self.time_mix_key + shifted * (1 - self.time_mix_key)
        out = self.value(torch.square(torch.relu(self.key(key))))
        state[0][:, :, self.layer_id] = hidden[:, -1]  # also: GG107
        return out, state


class RwkvBlock(nn.Module):
    def __init__(self, config, layer_id):
        super().__init__()
        self.ln1 = nn.LayerNorm(config.hidden_size)
        self.ln2 = nn.LayerNorm(config.hidden_size)
        self.attention = RwkvSelfAttention(config, layer_id)
        self.feed_forward = RwkvFeedForward(config, layer_id)

    def forward(self, hidden, state):
        attention, state = self.attention(self.ln1(hidden), state)
        hidden = hidden + attention
        feed_forward, state = self.feed_forward(self.ln2(hidden), state)
        return hidden + feed_forward, state


class RwkvForecaster(nn.Module):
    def __init__(self, config, n_features=3):
        super().__init__()
        self.config = config
        self.inp = nn.Linear(n_features, config.hidden_size)
        self.blocks = nn.ModuleList([RwkvBlock(config, i) for i in range(config.num_hidden_layers)])
        self.head = nn.Linear(config.hidden_size, n_features)

    def init_state(self, batch_size):
        shape = (batch_size, self.config.hidden_size, self.config.num_hidden_layers)
        return [torch.zeros(shape) for _ in range(4)]

    def forward(self, series):
        state = self.init_state(series.size(0))
        preds = []
        for t in range(series.size(1)):
            hidden = self.inp(series[:, t:t + 1])
            for block in self.blocks:
                hidden, state = block(hidden, state)
            preds.append(self.head(hidden))
        return torch.cat(preds, dim=1)


def main():
    torch.manual_seed(0)
    model = RwkvForecaster(RwkvConfig())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    t = torch.linspace(0, 6.28, 13)
    series = torch.stack([torch.sin(t), torch.cos(t), torch.sin(2 * t)], dim=-1).expand(4, -1, -1)
    series = series + 0.05 * torch.randn(4, 13, 3)
    for epoch in range(3):
        preds = model(series[:, :-1])
        loss = nn.functional.mse_loss(preds, series[:, 1:])
        optimizer.zero_grad()
        loss.backward()  # also: GG107
        optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
