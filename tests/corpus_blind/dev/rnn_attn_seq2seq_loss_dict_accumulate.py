# corpus: attention seq2seq returns a dict of losses (nll, coverage, total); the epoch logger adds loss[key] tensors into a running dict
# source: https://github.com/jokester-zzz/SSA-SC/issues/2
import torch
import torch.nn as nn
import torch.nn.functional as F

SRC_V, TGT_V, HID = 18, 16, 12


class Seq2SeqAttn(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(SRC_V, HID)
        self.tgt_emb = nn.Embedding(TGT_V, HID)
        self.encoder = nn.GRU(HID, HID, batch_first=True)
        self.decoder = nn.GRUCell(2 * HID, HID)
        self.attn = nn.Linear(HID, HID, bias=False)
        self.out = nn.Linear(2 * HID, TGT_V)

    def forward(self, src, tgt):
        enc_out, h = self.encoder(self.src_emb(src))
        h = h[0]
        coverage = torch.zeros(src.shape)
        ctx = torch.zeros_like(h)
        nll, cov_loss = 0.0, 0.0
        for t in range(tgt.size(1) - 1):
            h = self.decoder(torch.cat([self.tgt_emb(tgt[:, t]), ctx], dim=1), h)
            scores = torch.bmm(enc_out, self.attn(h).unsqueeze(2)).squeeze(2)
            a = F.softmax(scores, dim=1)
            ctx = torch.bmm(a.unsqueeze(1), enc_out).squeeze(1)
            logits = self.out(torch.cat([h, ctx], dim=1))
            nll = nll + F.cross_entropy(logits, tgt[:, t + 1])
            cov_loss = cov_loss + torch.minimum(a, coverage).sum(1).mean()
            coverage = coverage + a
        steps = tgt.size(1) - 1
        loss = {"nll": nll / steps, "coverage": cov_loss / steps}
        loss["total"] = loss["nll"] + 0.5 * loss["coverage"]
        return loss


def train_epoch(model, optimizer, batches):
    epoch_loss = {"nll": 0.0, "coverage": 0.0, "total": 0.0}
    for src, tgt in batches:
        loss = model(src, tgt)
        optimizer.zero_grad()
        loss["total"].backward()
        optimizer.step()
        for key in loss:
            epoch_loss[key] += loss[key]  # expect: GG301
    return {k: v / len(batches) for k, v in epoch_loss.items()}


def main():
    torch.manual_seed(0)
    model = Seq2SeqAttn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [(torch.randint(0, SRC_V, (3, 6)), torch.randint(0, TGT_V, (3, 5))) for _ in range(4)]
    return [train_epoch(model, optimizer, batches) for _ in range(2)]


if __name__ == "__main__":
    history = main()
    # ground truth: every logged epoch value is a tensor that still references the training graphs
    assert all(v.grad_fn is not None for epoch in history for v in epoch.values())
