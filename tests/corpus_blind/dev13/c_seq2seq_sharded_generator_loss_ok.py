# corpus: OpenNMT-style seq2seq trainer with sharded generator loss: the decoder output is split into detached leaf shards, each shard's loss.backward() only fills the shard's .grad, and shards() finishes with one torch.autograd.backward(inputs, grads) through the decoder, which looks like a second backward but walks the decoder graph only once; correct
# source: https://github.com/ratishsp/data2text-plan-py/issues/11
import torch
import torch.nn as nn
import torch.nn.functional as F


def filter_shard_state(state, shard_size):
    for k, v in state.items():
        if v is not None:
            v_split = []
            if isinstance(v, torch.Tensor):
                for v_chunk in torch.split(v, shard_size):
                    v_chunk = v_chunk.data.clone()
                    v_chunk.requires_grad = v.requires_grad
                    v_split.append(v_chunk)
            yield k, (v, v_split)


def shards(state, shard_size):
    non_none = dict(filter_shard_state(state, shard_size))
    keys, values = zip(*((k, [v_chunk for v_chunk in v_split]) for k, (_, v_split) in non_none.items()))
    for shard_tensors in zip(*values):
        yield dict(zip(keys, shard_tensors))
    # Assumed backprop'd: the shard leaves now hold the gradient of the loss w.r.t. the decoder output.
    variables = []
    for k, (v, v_split) in non_none.items():
        if isinstance(v, torch.Tensor) and state[k].requires_grad:
            variables.extend(zip(torch.split(state[k], shard_size), [v_chunk.grad for v_chunk in v_split]))
    inputs, grads = zip(*variables)
    torch.autograd.backward(inputs, grads)


class NMTLossCompute:
    def __init__(self, generator, padding_idx=0):
        self.generator = generator
        self.padding_idx = padding_idx

    def _make_shard_state(self, output, target):
        return {"output": output, "target": target}

    def _compute_loss(self, output, target):
        scores = self.generator(output.reshape(-1, output.shape[-1]))
        loss = F.nll_loss(scores, target.reshape(-1), ignore_index=self.padding_idx, reduction="sum")
        n_words = target.ne(self.padding_idx).sum().item()
        return loss, {"loss": loss.item(), "n_words": n_words}

    def sharded_compute_loss(self, output, target, shard_size, normalization):
        stats = {"loss": 0.0, "n_words": 0}
        shard_state = self._make_shard_state(output, target)
        for shard in shards(shard_state, shard_size):
            loss, shard_stats = self._compute_loss(**shard)
            loss.div(float(normalization)).backward()
            for k in stats:
                stats[k] += shard_stats[k]
        return stats


class Seq2Seq(nn.Module):
    def __init__(self, vocab=30, dim=32):
        super().__init__()
        self.src_emb, self.tgt_emb = nn.Embedding(vocab, dim), nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim)
        self.decoder = nn.GRU(dim, dim)

    def forward(self, src, tgt):
        _, enc_state = self.encoder(self.src_emb(src))
        dec_out, _ = self.decoder(self.tgt_emb(tgt), enc_state)
        return dec_out  # (tgt_len, batch, dim)


class Trainer:
    def __init__(self, model, generator, shard_size=4, lr=1e-3):
        self.model, self.shard_size = model, shard_size
        self.train_loss = NMTLossCompute(generator)
        self.optim = torch.optim.Adam(list(model.parameters()) + list(generator.parameters()), lr=lr)

    def train_step(self, src, tgt):
        self.optim.zero_grad()
        dec_in, dec_target = tgt[:-1], tgt[1:]
        outputs = self.model(src, dec_in)
        normalization = dec_target.ne(0).sum().item()
        stats = self.train_loss.sharded_compute_loss(outputs, dec_target, self.shard_size, normalization)
        self.optim.step()
        return stats["loss"] / stats["n_words"]


def main():
    torch.manual_seed(0)
    model = Seq2Seq()
    generator = nn.Sequential(nn.Linear(32, 30), nn.LogSoftmax(dim=-1))
    trainer = Trainer(model, generator)
    batches = [(torch.randint(1, 30, (9, 6)), torch.randint(1, 30, (11, 6))) for _ in range(4)]
    for epoch in range(2):
        print(f"epoch {epoch}: xent {sum(trainer.train_step(s, t) for s, t in batches) / len(batches):.4f}")


if __name__ == "__main__":
    main()
