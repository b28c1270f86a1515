# corpus: GRU4Rec with session-parallel mini-batches (cornac recom_gru4rec shape): the per-layer hidden states in the list H carry over between steps, are zeroed for sessions that just started, detached in place with H[i].detach_() and re-indexed to the still-active sessions before each forward; the epoch loss is accumulated as numpy; correct
# source: https://github.com/PreferredAI/cornac/pull/574
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class GRU4RecModel(nn.Module):
    def __init__(self, n_items, layers=(32,), embedding=16, dropout_p_hidden=0.1):
        super().__init__()
        self.layers = layers
        self.E = nn.Embedding(n_items, embedding)
        self.G = nn.ModuleList([nn.GRUCell(embedding if i == 0 else layers[i - 1], layers[i])
                                for i in range(len(layers))])
        self.D = nn.ModuleList([nn.Dropout(dropout_p_hidden) for _ in layers])
        self.Wy = nn.Embedding(n_items, layers[-1])
        self.By = nn.Embedding(n_items, 1)

    def hidden_step(self, X, H, training=False):
        for i in range(len(self.layers)):
            X = self.G[i](X, H[i])
            if training:
                X = self.D[i](X)
            H[i] = X
        return X

    def forward(self, X, H, Y, training=False):
        E = self.E(X)
        Xh = self.hidden_step(E, H, training=training)
        O, B = self.Wy(Y), self.By(Y)
        return torch.mm(Xh, O.T) + B.T  # scores against the in-batch target items


def io_iter(sessions, batch_size, rng):
    order = list(rng.permutation(len(sessions)))
    slots = [order.pop() for _ in range(batch_size)]
    pos = [0] * batch_size
    start_mask = np.ones(batch_size, dtype=bool)
    while slots:
        in_iids = np.array([sessions[s][p] for s, p in zip(slots, pos)])
        out_iids = np.array([sessions[s][p + 1] for s, p in zip(slots, pos)])
        yield in_iids, out_iids, start_mask, np.arange(len(slots))
        start_mask = np.zeros(len(slots), dtype=bool)
        keep = []
        for k in range(len(slots)):
            pos[k] += 1
            if pos[k] + 1 >= len(sessions[slots[k]]):  # session finished: start a new one in this slot
                if not order:
                    continue
                slots[k], pos[k], start_mask[k] = order.pop(), 0, True
            keep.append(k)
        if len(keep) < len(slots):  # drop exhausted slots; the caller re-indexes H with valid_id
            slots, pos, start_mask = [slots[k] for k in keep], [pos[k] for k in keep], start_mask[keep]
            yield None, None, None, np.array(keep)


def fit(model, sessions, n_epochs=2, batch_size=6, lr=0.05, seed=0):
    rng = np.random.RandomState(seed)
    opt = torch.optim.Adagrad(model.parameters(), lr=lr)
    for epoch_id in range(n_epochs):
        model.train()
        H = [torch.zeros((batch_size, model.layers[i]), dtype=torch.float32) for i in range(len(model.layers))]
        total_loss, cnt, pending_valid = 0.0, 0, None
        for in_iids, out_iids, start_mask, valid_id in io_iter(sessions, batch_size, rng):
            if in_iids is None:
                pending_valid = valid_id
                continue
            for i in range(len(H)):
                if pending_valid is not None:
                    H[i] = H[i][pending_valid]
                H[i][np.nonzero(start_mask)[0], :] = 0
                H[i].detach_()
            pending_valid = None
            in_t, out_t = torch.tensor(in_iids, dtype=torch.long), torch.tensor(out_iids, dtype=torch.long)
            model.zero_grad()
            R = model(in_t, H, out_t, training=True)
            L = F.cross_entropy(R, torch.arange(len(in_iids)))
            L.backward()
            opt.step()
            total_loss += L.cpu().detach().numpy() * len(in_iids)
            cnt += len(in_iids)
        print(f"epoch {epoch_id}: loss {total_loss / cnt:.4f}")


def main():
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    n_items = 40
    sessions = [list(rng.randint(0, n_items, size=rng.randint(3, 9))) for _ in range(30)]
    fit(GRU4RecModel(n_items), sessions)


if __name__ == "__main__":
    main()
