# corpus: A bottom-up-attention VQA model whose answer classifier puts Dropout(inplace=True) right after a ReLU, so dropout overwrites the ReLU output that ReLU's backward needs.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/BierOne/bottom-up-attention-vqa/issues/6
import torch
import torch.nn as nn
import torch.nn.functional as F


class FCNet(nn.Module):
    def __init__(self, dims, dropout=0.0):
        super(FCNet, self).__init__()
        layers = []
        for in_dim, out_dim in zip(dims[:-1], dims[1:]):
            layers.append(nn.Dropout(dropout))
            layers.append(nn.Linear(in_dim, out_dim))
            layers.append(nn.ReLU())
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)


class Attention(nn.Module):
    def __init__(self, v_dim, q_dim, hid_dim, glimpses=1):
        super(Attention, self).__init__()
        self.v_proj = FCNet([v_dim, hid_dim])
        self.q_proj = FCNet([q_dim, hid_dim])
        self.linear = nn.Linear(hid_dim, glimpses)

    def forward(self, v, q):
        v_proj = self.v_proj(v)
        q_proj = self.q_proj(q).unsqueeze(1)
        logits = self.linear(v_proj * q_proj)
        return F.softmax(logits, dim=1), logits


class SimpleClassifier(nn.Module):
    def __init__(self, in_dim, hid_dim, out_dim, dropout=0.0):
        super(SimpleClassifier, self).__init__()
        self.q_net = FCNet([in_dim[0], hid_dim[0]], dropout)
        self.v_net = FCNet([in_dim[1], hid_dim[0]], dropout)
        self.main = nn.Sequential(
            nn.Linear(hid_dim[0], hid_dim[1]),
            nn.ReLU(),
            nn.Dropout(dropout, inplace=True),  # expect: GG107
            nn.Linear(hid_dim[1], out_dim),
        )

    def forward(self, q_emb, v_emb):
        joint_repr = self.q_net(q_emb) * self.v_net(v_emb)
        logits = self.main(joint_repr)
        return logits


class BaseModel(nn.Module):
    def __init__(self, vocab, w_dim, q_dim, v_dim, num_answers):
        super(BaseModel, self).__init__()
        self.w_emb = nn.Embedding(vocab, w_dim)
        self.q_emb = nn.GRU(w_dim, q_dim, batch_first=True)
        self.v_att = Attention(v_dim, q_dim, q_dim)
        self.classifier = SimpleClassifier((q_dim, v_dim), (q_dim, q_dim * 2), num_answers, dropout=0.5)

    def forward(self, v, b, q, a):
        w_emb = self.w_emb(q)
        _, hidden = self.q_emb(w_emb)
        q_emb = hidden[-1]
        att, _ = self.v_att(v, q_emb)
        v_emb = (att * v).sum(1)
        logits = self.classifier(q_emb, v_emb)
        return logits, att


def binary_cross_entropy_with_logits(input, target, mean=False):
    max_val = (-input).clamp(min=0)
    loss = input - input * target + max_val + ((-max_val).exp() + (-input - max_val).exp()).log()
    loss = loss.sum(dim=1)
    return loss.mean() if mean else loss


def compute_score_with_logits(logits, labels):
    logits = torch.max(logits, 1)[1].data
    one_hots = torch.zeros_like(labels)
    one_hots.scatter_(1, logits.view(-1, 1), 1)
    return (one_hots * labels).sum(dim=1)


def fake_loader(num_batches, batch=4, objs=6, v_dim=16, seq=5, vocab=30, answers=10):
    for i in range(num_batches):
        v = torch.randn(batch, objs, v_dim)
        b = torch.rand(batch, objs, 4)
        q = torch.randint(0, vocab, (batch, seq))
        a = torch.rand(batch, answers)
        qid = torch.arange(i * batch, (i + 1) * batch)
        yield v, b, q, a, qid


def run(model, loader, optimizer, train=True):
    model.train() if train else model.eval()
    losses, accs = [], []
    for v, b, q, a, qid in loader:
        pred, _ = model(v, b, q, a)
        loss = binary_cross_entropy_with_logits(pred, a, True)
        acc = compute_score_with_logits(pred, a.data)
        if train:
            loss.backward()  # also: GG107
            nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optimizer.step()
            optimizer.zero_grad()
        losses.append(loss.item())
        accs.append(acc.mean().item())
    return sum(losses) / len(losses), sum(accs) / len(accs)


def main():
    torch.manual_seed(0)
    model = BaseModel(vocab=30, w_dim=12, q_dim=16, v_dim=16, num_answers=10)
    optimizer = torch.optim.Adamax(model.parameters(), lr=2e-3)
    for epoch in range(2):
        loss, acc = run(model, fake_loader(3), optimizer, train=True)
        print("epoch %d loss %.4f acc %.4f" % (epoch, loss, acc))


if __name__ == "__main__":
    main()
