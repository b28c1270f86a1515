# corpus: Lightning-style TBPTT loop in tbptt/loop.py carries the LSTM (h, c) tuple between splits; its detach helper only handles a bare Tensor, so split 2's backward reaches split 1's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/Lightning-AI/pytorch-lightning/pull/8145
import torch

from tbptt import LSTMLanguageModel, TBPTTTrainer


def make_batches(n_batches=2, batch_size=3, seq_len=12, vocab_size=20):
    batches = []
    for _ in range(n_batches):
        stream = torch.randint(0, vocab_size, (batch_size, seq_len + 1))
        batches.append((stream[:, :-1], stream[:, 1:]))
    return batches


def main():
    torch.manual_seed(0)
    model = LSTMLanguageModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    trainer = TBPTTTrainer(model, optimizer)
    losses = trainer.fit(make_batches())  # also: GG104
    print("split losses:", [round(v, 3) for v in losses])


if __name__ == "__main__":
    main()
