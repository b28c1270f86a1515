# corpus: character-level LSTM language model that carries the hidden state across batches without detaching
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)

text = "hello world, hello autograd. " * 4
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])
vocab = len(chars)


class CharLSTM(nn.Module):
    def __init__(self, vocab_size: int, hidden: int = 32) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, 16)
        self.lstm = nn.LSTM(16, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, x, state):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


model = CharLSTM(vocab)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()
seq_len = 10
hidden = (torch.zeros(1, 1, 32), torch.zeros(1, 1, 32))

for i in range(0, data.numel() - seq_len - 1, seq_len):
    x = data[i:i + seq_len].unsqueeze(0)
    y = data[i + 1:i + seq_len + 1].unsqueeze(0)
    optimizer.zero_grad()
    logits, hidden = model(x, hidden)  # expect: GG104
    loss = criterion(logits.view(-1, vocab), y.view(-1))
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    print(f"chunk {i // seq_len}: loss {loss.item():.3f}")
