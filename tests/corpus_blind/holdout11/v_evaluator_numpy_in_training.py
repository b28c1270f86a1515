# corpus: MUSE/UMWE-style supervised embedding mapping: the evaluator run at each epoch end maps the source embeddings through the trainable mapping and calls .numpy() on a tensor that still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/ccsasuke/umwe/issues/5
import numpy as np
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, src_emb, tgt_emb, mapping, dico, lr=0.1):
        self.src_emb = src_emb
        self.tgt_emb = tgt_emb
        self.mapping = mapping
        self.dico = dico  # (n_pairs, 2) seed dictionary of (src_id, tgt_id)
        self.map_optimizer = torch.optim.SGD(mapping.parameters(), lr=lr)
        self.map_beta = 0.01

    def get_xy(self, bs):
        ids = torch.randint(0, self.dico.size(0), (bs,))
        src_ids, tgt_ids = self.dico[ids, 0], self.dico[ids, 1]
        return self.src_emb(src_ids), self.tgt_emb(tgt_ids)

    def mapping_step(self, stats, bs=8):
        x, y = self.get_xy(bs)
        loss = ((self.mapping(x) - y) ** 2).sum(dim=1).mean()
        self.map_optimizer.zero_grad()
        loss.backward()
        self.map_optimizer.step()
        self.orthogonalize()
        stats["MAP_COSTS"].append(loss.item())

    def orthogonalize(self):
        if self.map_beta > 0:
            W = self.mapping.weight.data
            W.copy_((1 + self.map_beta) * W - self.map_beta * W.mm(W.t().mm(W)))


class Evaluator:
    def __init__(self, trainer):
        self.src_emb = trainer.src_emb
        self.tgt_emb = trainer.tgt_emb
        self.mapping = trainer.mapping
        self.dico = trainer.dico

    def word_translation(self, to_log):
        emb1 = self.mapping(self.src_emb.weight)  # also: GG110
        emb2 = self.tgt_emb.weight
        emb1 = emb1 / emb1.norm(2, 1, keepdim=True).expand_as(emb1)
        emb2 = emb2 / emb2.norm(2, 1, keepdim=True).expand_as(emb2)
        emb1 = emb1.cpu().numpy()  # expect: GG110
        emb2 = emb2.detach().cpu().numpy()
        scores = emb1 @ emb2.T
        top1 = np.argmax(scores, axis=1)
        src_ids, tgt_ids = self.dico[:, 0].numpy(), self.dico[:, 1].numpy()
        to_log["precision_at_1-nn"] = 100.0 * float(np.mean(top1[src_ids] == tgt_ids))

    def all_eval(self, to_log):
        self.word_translation(to_log)


def build_embeddings(n_words=20, dim=6):
    src = nn.Embedding(n_words, dim)
    tgt = nn.Embedding(n_words, dim)
    rot, _ = torch.linalg.qr(torch.randn(dim, dim))
    with torch.no_grad():
        tgt.weight.copy_(src.weight @ rot.T + 0.05 * torch.randn(n_words, dim))
    src.weight.requires_grad_(False)
    tgt.weight.requires_grad_(False)
    return src, tgt


def main():
    torch.manual_seed(0)
    src_emb, tgt_emb = build_embeddings()
    mapping = nn.Linear(6, 6, bias=False)
    nn.init.eye_(mapping.weight)
    dico = torch.stack([torch.arange(20), torch.arange(20)], dim=1)
    trainer = Trainer(src_emb, tgt_emb, mapping, dico)
    evaluator = Evaluator(trainer)
    for n_epoch in range(2):
        stats = {"MAP_COSTS": []}
        for n_iter in range(5):
            trainer.mapping_step(stats)
        to_log = {"n_epoch": n_epoch}
        evaluator.all_eval(to_log)
        print(f"epoch {n_epoch}: map cost {np.mean(stats['MAP_COSTS']):.4f} {to_log}")


if __name__ == "__main__":
    main()
