# corpus: adversarial training on word embeddings backprops the clean loss with retain_graph=True to read the embedding gradient, then backprops clean + perturbed loss once per batch: correct
# source: https://discuss.pytorch.org/t/adversarial-training-implementation-in-pytorch/33975
import torch
import torch.nn as nn
import torch.nn.functional as F


class LexiconEncoder(nn.Module):
    def __init__(self, vocab=20, dim=6):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)

    def forward(self, ids, weight=None):
        return F.embedding(ids, self.embedding.weight if weight is None else weight)


class SpanNetwork(nn.Module):
    def __init__(self, dim=6, hidden=8, seq_len=5):
        super().__init__()
        self.lexicon_encoder = LexiconEncoder(dim=dim)
        self.rnn = nn.GRU(dim, hidden, batch_first=True)
        self.start_head = nn.Linear(hidden, 1)
        self.end_head = nn.Linear(hidden, 1)

    def forward(self, ids, emb_weight=None):
        h, _ = self.rnn(self.lexicon_encoder(ids, emb_weight))
        return self.start_head(h).squeeze(-1), self.end_head(h).squeeze(-1)


class Model:
    def __init__(self, epsilon=5.0):
        self.network = SpanNetwork()
        self.optimizer = torch.optim.Adamax(self.network.parameters(), lr=2e-3)
        self.epsilon = epsilon

    def adversarial_loss(self, batch, loss, y):
        self.optimizer.zero_grad()
        loss.backward(retain_graph=True)
        grad = self.network.lexicon_encoder.embedding.weight.grad.detach()
        perturb = F.normalize(grad, p=2, dim=1) * self.epsilon
        adv_embedding = self.network.lexicon_encoder.embedding.weight + perturb
        start, end = self.network(batch, emb_weight=adv_embedding)
        return F.cross_entropy(start, y[0]) + F.cross_entropy(end, y[1])

    def update(self, batch, y):
        self.network.train()
        start, end = self.network(batch)
        loss = F.cross_entropy(start, y[0]) + F.cross_entropy(end, y[1])
        loss_adv = self.adversarial_loss(batch, loss, y)
        loss_total = loss + loss_adv
        self.optimizer.zero_grad()
        loss_total.backward()
        self.optimizer.step()
        return loss.item(), loss_adv.item()


def main():
    torch.manual_seed(0)
    model = Model()
    before = model.network.rnn.weight_ih_l0.detach().clone()
    for step in range(4):
        batch = torch.randint(0, 20, (3, 5))
        y = (torch.randint(0, 5, (3,)), torch.randint(0, 5, (3,)))
        clean, adv = model.update(batch, y)
        print(step, "clean", round(clean, 4), "adv", round(adv, 4))
    print("moved", (model.network.rnn.weight_ih_l0 - before).abs().max().item())


if __name__ == "__main__":
    main()
