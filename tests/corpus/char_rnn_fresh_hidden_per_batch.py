# corpus: character RNN classifier that initialises a fresh hidden state for every batch (nothing carried)
import torch
import torch.nn as nn


class NameClassifier(nn.Module):
    def __init__(self, n_letters: int, hidden: int, n_classes: int) -> None:
        super().__init__()
        self.hidden_size = hidden
        self.rnn = nn.RNN(n_letters, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_classes)

    def init_hidden(self, batch: int) -> torch.Tensor:
        return torch.zeros(1, batch, self.hidden_size)

    def forward(self, x, h):
        _, h = self.rnn(x, h)
        return self.out(h[-1]), h


torch.manual_seed(0)
model = NameClassifier(10, 16, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

for batch in range(4):
    x = torch.randn(3, 7, 10)
    y = torch.randint(0, 4, (3,))
    hidden = model.init_hidden(3)
    logits, hidden = model(x, hidden)
    loss = criterion(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(batch, loss.item())
