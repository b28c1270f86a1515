# corpus: embedding inspector for a textual-inversion text encoder looks up token vectors through the live nn.Embedding and converts them with .numpy() for the plot data
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/tkalayci71/embedding-inspector/issues/22
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = ["<start>", "<end>", "a", "photo", "of", "cat", "dog", "painting", "style", "<sks>"]


class TextEncoder(nn.Module):
    def __init__(self, vocab_size=len(VOCAB), dim=6):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return self.proj(torch.tanh(self.token_embedding(ids))).mean(dim=1)


def tokenize(text):
    return [VOCAB.index(w) for w in text.split() if w in VOCAB]


def train_textual_inversion(encoder, placeholder="<sks>", steps=3):
    """Only the placeholder row is meant to move; the other rows get their grads zeroed."""
    token_id = VOCAB.index(placeholder)
    optimizer = torch.optim.AdamW(encoder.token_embedding.parameters(), lr=5e-2, weight_decay=0.0)
    target = torch.randn(1, 6)
    prompt = torch.tensor([tokenize(f"a photo of {placeholder}")])
    losses = []
    for step in range(steps):
        loss = F.mse_loss(encoder(prompt), target)
        optimizer.zero_grad()
        loss.backward()
        keep = torch.zeros(len(VOCAB), 1)
        keep[token_id] = 1.0
        encoder.token_embedding.weight.grad.mul_(keep)
        optimizer.step()
        losses.append(loss.item())
    return losses


def do_inspect(encoder, text, topk=3):
    ids = torch.tensor(tokenize(text))
    emb_vec = encoder.token_embedding(ids)
    all_embs = encoder.token_embedding.weight
    results, series = [], []
    for u in range(len(ids)):
        sims = F.cosine_similarity(emb_vec[u][None], all_embs, dim=1)
        best = sims.topk(topk + 1).indices.tolist()[1:]
        results.append((VOCAB[ids[u].item()], [VOCAB[b] for b in best]))
        x = torch.arange(emb_vec.size(1))
        series.append((x.numpy(), emb_vec[u].numpy()))  # expect: GG110
    stats = np.stack([s[1] for s in series])
    return results, stats


def main():
    torch.manual_seed(0)
    encoder = TextEncoder()
    losses = train_textual_inversion(encoder)
    print("textual inversion loss", [round(l, 4) for l in losses])
    results, stats = do_inspect(encoder, "<sks> cat")
    for token, neighbours in results:
        print(token, "->", neighbours)
    print("vector norms", np.linalg.norm(stats, axis=1))


if __name__ == "__main__":
    main()
