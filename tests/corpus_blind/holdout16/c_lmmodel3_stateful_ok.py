# corpus: fastbook's stateful LMModel3 keeps its hidden state self.h between batches for truncated BPTT but rebinds it to self.h.detach() at the end of every forward (and resets per epoch), so each backward only walks the current batch; correct.
# source: https://github.com/fastai/fastbook/pull/469
import torch
import torch.nn as nn
import torch.nn.functional as F


class LMModel3(nn.Module):
    def __init__(self, vocab_sz, n_hidden):
        super().__init__()
        self.i_h = nn.Embedding(vocab_sz, n_hidden)
        self.h_h = nn.Linear(n_hidden, n_hidden)
        self.h_o = nn.Linear(n_hidden, vocab_sz)
        self.h = 0

    def forward(self, x):
        for i in range(3):
            self.h = self.h + self.i_h(x[:, i])
            self.h = F.relu(self.h_h(self.h))
        out = self.h_o(self.h)
        self.h = self.h.detach()
        return out

    def reset(self):
        self.h = 0


def group_chunks(ds, bs):
    m = len(ds) // bs
    new_ds = []
    for i in range(m):
        new_ds += [ds[i + m * j] for j in range(bs)]
    return new_ds


class ModelResetter:
    """Callback that resets the stateful model at the start of training and validation."""

    def before_train(self, learner):
        learner.model.reset()

    def before_validate(self, learner):
        learner.model.reset()


class Learner:
    def __init__(self, dls, model, loss_func, lr, cbs):
        self.train_dl, self.valid_dl = dls
        self.model, self.loss_func, self.cbs = model, loss_func, cbs
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)

    def fit(self, n_epoch):
        for epoch in range(n_epoch):
            for cb in self.cbs:
                cb.before_train(self)
            self.model.train()
            for xb, yb in self.train_dl:
                loss = self.loss_func(self.model(xb), yb)
                loss.backward()
                self.opt.step()
                self.opt.zero_grad()
            for cb in self.cbs:
                cb.before_validate(self)
            self.model.eval()
            with torch.no_grad():
                accs = [(self.model(xb).argmax(-1) == yb).float().mean().item() for xb, yb in self.valid_dl]
            print(f"epoch {epoch} loss {loss.item():.3f} acc {sum(accs) / len(accs):.3f}")


def make_dls(nums, bs):
    seqs = [(torch.tensor(nums[i : i + 3]), nums[i + 3]) for i in range(0, len(nums) - 4, 3)]
    cut = int(len(seqs) * 0.8)
    train = group_chunks(seqs[:cut], bs)
    valid = group_chunks(seqs[cut:], bs)

    def batches(ds):
        return [(torch.stack([s for s, _ in ds[i : i + bs]]), torch.tensor([t for _, t in ds[i : i + bs]]))
                for i in range(0, len(ds) - bs + 1, bs)]

    return batches(train), batches(valid)


def main():
    torch.manual_seed(0)
    vocab_sz = 30
    nums = [i % vocab_sz for i in range(600)]
    dls = make_dls(nums, bs=8)
    learn = Learner(dls, LMModel3(vocab_sz, 16), loss_func=F.cross_entropy, lr=1e-3, cbs=[ModelResetter()])
    learn.fit(3)


if __name__ == "__main__":
    main()
