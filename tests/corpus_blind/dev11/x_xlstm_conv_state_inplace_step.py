# corpus: recurrent LM trained in step mode; conv1d_step rolls and writes the causal-conv state in place (copy_ and slice assignment) although the previous step's multiply saved it for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/NX-AI/xlstm/issues/51
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv1d_step(x, conv_state, conv1d_weight, conv1d_bias=None):
    """x: (B, 1, F); conv_state: (B, KS, F); conv1d_weight: (KS, F)."""
    assert x.shape[0] == conv_state.shape[0] and x.shape[2] == conv_state.shape[2]
    conv_state.copy_(torch.roll(conv_state, shifts=-1, dims=1))  # expect: GG107
    conv_state[:, -1:, :] = x  # also: GG107
    y = torch.sum(conv_state * conv1d_weight, dim=1, keepdim=True)
    if conv1d_bias is not None:
        y = y + conv1d_bias
    return y, conv_state


class CausalConv1d(nn.Module):
    def __init__(self, feature_dim, kernel_size=4):
        super().__init__()
        self.kernel_size = kernel_size
        self.weight = nn.Parameter(torch.randn(kernel_size, feature_dim) * 0.3)
        self.bias = nn.Parameter(torch.zeros(feature_dim))

    def step(self, x, conv_state):
        return conv1d_step(x, conv_state, self.weight, self.bias)


class StepLM(nn.Module):
    def __init__(self, vocab=11, dim=8, kernel_size=4):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.conv = CausalConv1d(dim, kernel_size)
        self.cell = nn.GRUCell(dim, dim)
        self.head = nn.Linear(dim, vocab)

    def init_state(self, batch_size):
        dim = self.embedding.embedding_dim
        return torch.zeros(batch_size, self.conv.kernel_size, dim), torch.zeros(batch_size, dim)

    def step(self, token, state):
        conv_state, h = state
        x = self.embedding(token).unsqueeze(1)
        x_conv, conv_state = self.conv.step(x, conv_state)
        h = self.cell(F.silu(x_conv.squeeze(1)), h)
        return self.head(h), (conv_state, h)


def train_chunk(model, optimizer, tokens):
    state = model.init_state(tokens.shape[0])
    loss = 0.0
    for t in range(tokens.shape[1] - 1):
        logits, state = model.step(tokens[:, t], state)
        loss = loss + F.cross_entropy(logits, tokens[:, t + 1])
    loss = loss / (tokens.shape[1] - 1)
    optimizer.zero_grad()
    loss.backward()  # also: GG107
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = StepLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for chunk in range(2):
        tokens = torch.randint(0, 11, (2, 6))
        print(chunk, train_chunk(model, optimizer, tokens))


if __name__ == "__main__":
    main()
