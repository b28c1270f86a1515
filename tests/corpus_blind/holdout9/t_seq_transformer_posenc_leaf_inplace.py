# corpus: small Transformer sentiment classifier (NYU DL course style) whose Embeddings module fills the sinusoidal position table by slice-assigning into nn.Embedding.weight, a leaf Parameter that requires grad, while autograd is recording
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation
# source: https://github.com/Atcold/NYU-DLSP20/issues/765
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


def create_sinusoidal_embeddings(nb_p, dim, E):
    theta = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                      for p in range(nb_p)])
    E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))  # expect: GG108
    E[:, 1::2] = torch.FloatTensor(np.cos(theta[:, 1::2]))
    E.detach_()
    E.requires_grad = False


class Embeddings(nn.Module):
    def __init__(self, d_model, vocab_size, max_position_embeddings, p=0.1):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, d_model, padding_idx=1)
        self.position_embeddings = nn.Embedding(max_position_embeddings, d_model)
        create_sinusoidal_embeddings(nb_p=max_position_embeddings, dim=d_model,
                                     E=self.position_embeddings.weight)
        self.layer_norm = nn.LayerNorm(d_model, eps=1e-12)
        self.dropout = nn.Dropout(p)

    def forward(self, input_ids):
        seq_length = input_ids.size(1)
        position_ids = torch.arange(seq_length, dtype=torch.long).unsqueeze(0).expand_as(input_ids)
        embeddings = self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
        return self.dropout(self.layer_norm(embeddings))


class Encoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, ff_hidden_dim, input_vocab_size, max_len):
        super().__init__()
        self.embedding = Embeddings(d_model, input_vocab_size, max_len)
        layer = nn.TransformerEncoderLayer(d_model, num_heads, ff_hidden_dim, batch_first=True)
        self.enc_layers = nn.TransformerEncoder(layer, num_layers)

    def forward(self, x):
        return self.enc_layers(self.embedding(x))


class TransformerClassifier(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, conv_hidden_dim, input_vocab_size,
                 num_answers, max_len=64):
        super().__init__()
        self.encoder = Encoder(num_layers, d_model, num_heads, conv_hidden_dim, input_vocab_size, max_len)
        self.dense = nn.Linear(d_model, num_answers)

    def forward(self, x):
        x = self.encoder(x)
        x, _ = torch.max(x, dim=1)
        return self.dense(x)


def train_epoch(model, optimizer, batches):
    model.train()
    total, correct = 0, 0
    for x, y in batches:
        optimizer.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        optimizer.step()
        correct += (out.argmax(1) == y).sum().item()
        total += y.size(0)
    return correct / total


def main():
    model = TransformerClassifier(num_layers=1, d_model=32, num_heads=2, conv_hidden_dim=64,
                                  input_vocab_size=100, num_answers=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [(torch.randint(2, 100, (8, 20)), torch.randint(0, 2, (8,))) for _ in range(4)]
    for epoch in range(2):
        print(epoch, train_epoch(model, optimizer, batches))


if __name__ == "__main__":
    main()
