# corpus: a StreamingLM keeps its LSTM (h, c) on self.hidden across step() calls without detaching, so the second step backpropagates into the first step's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG104.md (shape: 5, 6)
import torch
import torch.nn as nn
import torch.nn.functional as F


class StreamingLM(nn.Module):
    def __init__(self, vocab=12, dim=6, hidden=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)
        self.hidden = None

    def reset(self, batch_size):
        zeros = torch.zeros(1, batch_size, self.lstm.hidden_size)
        self.hidden = (zeros, zeros.clone())

    def forward(self, tokens):
        out, self.hidden = self.lstm(self.embed(tokens), self.hidden)  # expect: GG104
        return self.out(out)


class Runner:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def step(self, chunk):
        inputs, targets = chunk[:, :-1], chunk[:, 1:]
        logits = self.model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()  # also: GG104
        self.optimizer.step()
        return loss.item()


torch.manual_seed(0)
model = StreamingLM()
runner = Runner(model, torch.optim.SGD(model.parameters(), lr=0.1))
stream = torch.randint(0, 12, (2, 25))
model.reset(batch_size=2)
for start in range(0, 20, 5):
    runner.step(stream[:, start:start + 6])
