# corpus: block-recurrent transformer LM trained segment by segment over a long sequence; each layer's next recurrent state is appended to next_states already detached, so every segment backward only covers its own graph (correct)
# source: https://github.com/lucidrains/block-recurrent-transformer-pytorch/issues/4
import torch
import torch.nn as nn
import torch.nn.functional as F


class RecurrentAttentionBlock(nn.Module):
    def __init__(self, dim, num_state_vectors):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.to_state_attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.state_gate = nn.Linear(dim, dim)
        self.init_state = nn.Parameter(torch.randn(num_state_vectors, dim) * 0.02)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x, state=None):
        if state is None:
            state = self.init_state.unsqueeze(0).expand(x.shape[0], -1, -1)
        kv = torch.cat([state, x], dim=1)
        x = x + self.self_attn(x, kv, kv, need_weights=False)[0]
        x = x + self.ff(x)
        update = self.to_state_attn(state, x, x, need_weights=False)[0]
        gate = torch.sigmoid(self.state_gate(update))
        next_state = gate * state + (1 - gate) * torch.tanh(update)
        return x, next_state


class BlockRecurrentTransformer(nn.Module):
    def __init__(self, num_tokens=32, dim=16, depth=2, num_state_vectors=4):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.layers = nn.ModuleList([RecurrentAttentionBlock(dim, num_state_vectors) for _ in range(depth)])
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x, states=None):
        states = states if states is not None else [None] * len(self.layers)
        x = self.token_emb(x)
        next_states = []
        for layer, layer_state in zip(self.layers, states):
            x, layer_next_states = layer(x, layer_state)
            next_states.append(layer_next_states.detach())
        return self.to_logits(x), next_states


class RecurrentTrainerWrapper:
    def __init__(self, model, segment_len=8, lr=3e-4):
        self.model, self.segment_len = model, segment_len
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train_sequence(self, seq):
        states, total = None, 0.0
        inputs, labels = seq[:, :-1], seq[:, 1:]
        for inp, lab in zip(inputs.split(self.segment_len, dim=1), labels.split(self.segment_len, dim=1)):
            logits, states = self.model(inp, states)
            loss = F.cross_entropy(logits.transpose(1, 2), lab)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = RecurrentTrainerWrapper(BlockRecurrentTransformer())
    for it in range(3):
        seq = torch.randint(0, 32, (2, 33))
        print(it, trainer.train_sequence(seq))
