# corpus: fairseq-style seq2seq whose decoder (nmt/decoder.py) rewrites feature columns of encoder_out[0] in place; those encoder states are saved for backward (the encoder's tanh output, the gate multiply), so the backward in main.py fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/facebookresearch/fairseq/issues/251
import torch
import torch.nn.functional as F

from nmt import Seq2Seq

SRC_VOCAB, TGT_VOCAB, BOS = 15, 17, 1


def make_batch(batch_size=4, src_len=7, tgt_len=5):
    src = torch.randint(2, SRC_VOCAB, (batch_size, src_len))
    tgt = torch.randint(2, TGT_VOCAB, (batch_size, tgt_len))
    prev = torch.cat([torch.full((batch_size, 1), BOS), tgt[:, :-1]], dim=1)
    return src, prev, tgt


def train_step(model, optimizer, batch):
    src, prev, tgt = batch
    logits = model(src, prev)
    loss = F.cross_entropy(logits.reshape(-1, TGT_VOCAB), tgt.reshape(-1))
    optimizer.zero_grad()
    loss.backward()  # also: GG107
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = Seq2Seq(SRC_VOCAB, TGT_VOCAB)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        print(step, train_step(model, optimizer, make_batch()))


if __name__ == "__main__":
    main()
