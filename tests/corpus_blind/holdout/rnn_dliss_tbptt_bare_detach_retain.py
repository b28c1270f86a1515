# corpus: TBPTT language-model trainer "detaches" h and c with bare calls and uses retain_graph=True, so every chunk's backward re-runs through all earlier chunks
# source: https://github.com/dpressel/dliss-tutorial/issues/1
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 25


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab=VOCAB, emb=8, hid=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hid, batch_first=True)
        self.output = nn.Linear(hid, vocab)

    def forward(self, x, hidden=None):
        out, hidden = self.rnn(self.embed(x), hidden)
        return self.output(out), hidden


class LMTrainer:
    def __init__(self, model, bptt=4):
        self.model = model
        self.bptt = bptt
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

    def batchify(self, stream):
        return [(stream[:, i:i + self.bptt], stream[:, i + 1:i + 1 + self.bptt])
                for i in range(0, stream.size(1) - self.bptt, self.bptt)]

    def accumulate_epoch(self, stream):
        self.optimizer.zero_grad()
        hidden = None
        for x, y in self.batchify(stream):
            logits, hidden = self.model(x, hidden)
            hidden[0].detach()  # expect: GG112
            hidden[1].detach()  # also: GG112
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
            loss.backward(retain_graph=True)  # expect: GG302
        return hidden

    def step(self):
        self.optimizer.step()


def truncated_reference(model, trainer, stream):
    model.zero_grad()
    hidden = None
    for x, y in trainer.batchify(stream):
        logits, hidden = model(x, hidden)
        hidden = tuple(h.detach() for h in hidden)
        F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1)).backward()
    return model.rnn.weight_hh_l0.grad.clone()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = LSTMLanguageModel()
    reference_model = copy.deepcopy(model)
    trainer = LMTrainer(model)
    stream = torch.randint(0, VOCAB, (3, 17))
    final_hidden = trainer.accumulate_epoch(stream)
    buggy_grad = model.rnn.weight_hh_l0.grad.clone()
    trainer.step()
    # ground truth: the carried state was never detached, and gradients differ from truncated BPTT
    assert final_hidden[0].grad_fn is not None and final_hidden[1].grad_fn is not None
    ref_grad = truncated_reference(reference_model, LMTrainer(reference_model), stream)
    assert not torch.allclose(buggy_grad, ref_grad, atol=1e-6)
