# corpus: TBPTT trainer in the forum-thread shape: a one-step RNN module unrolled over a long sequence, the carried state detached at every chunk boundary before the next forward (correct)
# source: https://discuss.pytorch.org/t/implementing-truncated-backpropagation-through-time/15500?page=2
import torch
import torch.nn as nn


class OneStepModule(nn.Module):
    def __init__(self, input_size, hidden_size, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, input_size)
        self.cell = nn.GRUCell(input_size, hidden_size)
        self.out = nn.Linear(hidden_size, vocab)

    def forward(self, token, state):
        new_state = self.cell(self.embed(token), state)
        return self.out(new_state), new_state


class TBPTT:
    def __init__(self, one_step_module, loss_module, k, optimizer):
        self.one_step_module = one_step_module
        self.loss_module = loss_module
        self.k = k
        self.optimizer = optimizer

    def train(self, input_sequence, init_state):
        state = init_state
        total = 0.0
        for start in range(0, input_sequence.size(0) - 1, self.k):
            state = state.detach()
            self.optimizer.zero_grad()
            loss = 0.0
            chunk = input_sequence[start:start + self.k + 1]
            for t in range(chunk.size(0) - 1):
                output, state = self.one_step_module(chunk[t], state)
                loss = loss + self.loss_module(output, chunk[t + 1])
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total


def main():
    torch.manual_seed(0)
    vocab, batch = 20, 4
    module = OneStepModule(8, 16, vocab)
    optimizer = torch.optim.SGD(module.parameters(), lr=0.1)
    trainer = TBPTT(module, nn.CrossEntropyLoss(), k=5, optimizer=optimizer)
    seq = torch.randint(0, vocab, (31, batch))
    before = module.cell.weight_hh.detach().clone()
    for epoch in range(2):
        print("epoch", epoch, trainer.train(seq, torch.zeros(batch, 16)))
    assert not torch.equal(before, module.cell.weight_hh)


if __name__ == "__main__":
    main()
