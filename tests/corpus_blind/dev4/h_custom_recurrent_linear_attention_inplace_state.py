# corpus: recurrent (causal) linear attention layer that updates its running state in place (Zi += K; Si += einsum(K, V)); the previous step's einsums saved Si/Zi for backward, so training the layer step by step over a sequence fails when the loss is backpropagated
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/idiap/fast-transformers/pull/10
import torch
import torch.nn as nn
import torch.nn.functional as F


def elu_feature_map(x):
    return F.elu(x) + 1


class RecurrentLinearAttention(nn.Module):
    def __init__(self, feature_map=None, eps=1e-6):
        super().__init__()
        self.feature_map = feature_map or elu_feature_map
        self.eps = eps

    def forward(self, query, key, value, state=None):
        # Apply the feature map to the query and key
        Q = self.feature_map(query)
        K = self.feature_map(key)

        # Extract some shapes
        N, H, D = Q.shape
        _, _, M = value.shape

        # Extract the memory or initialize it
        if state is None:
            Si = query.new_zeros((N, H, D, M))
            Zi = query.new_zeros((N, H, D))
        else:
            Si, Zi = state

        # Ensure the batch size did not change
        if len(Si) != N:
            raise ValueError("The batch size changed during iteration")

        # Update the internal state
        Zi += K  # also: GG107
        Si += torch.einsum("nhd,nhm->nhdm", K, value)  # expect: GG107

        # Compute the output
        Z = 1. / (torch.einsum("nhd,nhd->nh", Q, Zi) + self.eps)
        V = torch.einsum("nhd,nhdm,nh->nhm", Q, Si, Z)

        return V, [Si, Zi]


class RecurrentAttentionLayer(nn.Module):
    def __init__(self, attention, d_model, n_heads):
        super().__init__()
        d_keys = d_model // n_heads
        self.inner_attention = attention
        self.query_projection = nn.Linear(d_model, d_keys * n_heads)
        self.key_projection = nn.Linear(d_model, d_keys * n_heads)
        self.value_projection = nn.Linear(d_model, d_keys * n_heads)
        self.out_projection = nn.Linear(d_keys * n_heads, d_model)
        self.n_heads = n_heads

    def forward(self, query, key, value, state=None):
        N, D = query.shape
        H = self.n_heads
        query = self.query_projection(query).view(N, H, -1)
        key = self.key_projection(key).view(N, H, -1)
        value = self.value_projection(value).view(N, H, -1)
        new_value, state = self.inner_attention(query, key, value, state)
        return self.out_projection(new_value.view(N, -1)), state


class RecurrentEncoder(nn.Module):
    def __init__(self, d_model=8, n_heads=2, vocab=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.attention = RecurrentAttentionLayer(RecurrentLinearAttention(), d_model, n_heads)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def step(self, tokens, state=None):
        x = self.embed(tokens)
        h, state = self.attention(x, x, x, state=state)
        return self.head(self.norm(x + h)), state


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()

    def compute_loss(self, seq):
        state = None
        logits = []
        for t in range(seq.shape[1] - 1):
            out, state = self.model.step(seq[:, t], state)
            logits.append(out)
        logits = torch.stack(logits, 1)
        return self.criterion(logits.reshape(-1, logits.shape[-1]), seq[:, 1:].reshape(-1))

    def train_step(self, seq):
        self.optimizer.zero_grad()
        loss = self.compute_loss(seq)
        loss.backward()  # also: GG107
        self.optimizer.step()
        return {"loss": loss.item()}


def main():
    torch.manual_seed(0)
    trainer = Trainer(RecurrentEncoder())
    for it in range(3):
        seq = torch.randint(0, 5, (2, 6))
        print(it, trainer.train_step(seq))


if __name__ == "__main__":
    main()
