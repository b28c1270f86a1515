# corpus: multi-label tagger forces the "always present" label by writing probs[:, 0] = 1 into the sigmoid output that SigmoidBackward saved
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pytorch/pytorch/issues/9391
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiLabelTagger(nn.Module):
    def __init__(self, vocab=50, dim=16, num_tags=6):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.fc = nn.Linear(dim, num_tags)

    def forward(self, tokens, offsets):
        logits = self.fc(self.emb(tokens, offsets))
        probs = torch.sigmoid(logits)
        probs[:, 0] = 1.0  # expect: GG107
        return probs


def collate(batch):
    tokens = torch.cat([b[0] for b in batch])
    offsets = torch.tensor([0] + [len(b[0]) for b in batch[:-1]]).cumsum(0)
    labels = torch.stack([b[1] for b in batch])
    return tokens, offsets, labels


def make_batch(n=4, num_tags=6):
    batch = []
    for _ in range(n):
        length = int(torch.randint(2, 6, (1,)))
        labels = (torch.rand(num_tags) > 0.5).float()
        labels[0] = 1.0
        batch.append((torch.randint(0, 50, (length,)), labels))
    return collate(batch)


def main():
    torch.manual_seed(0)
    model = MultiLabelTagger()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(2):
        tokens, offsets, labels = make_batch()
        probs = model(tokens, offsets)
        loss = F.binary_cross_entropy(probs.clamp(1e-6, 1 - 1e-6), labels)
        opt.zero_grad()
        loss.backward()  # also: GG107
        opt.step()


if __name__ == "__main__":
    main()
