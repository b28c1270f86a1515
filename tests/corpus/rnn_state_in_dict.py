# corpus: streaming RNN whose recurrent state lives in a dict that is carried across batches without detach
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)

rnn = nn.RNN(input_size=2, hidden_size=8, batch_first=True)
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.01)
state = {"h": torch.zeros(1, 4, 8), "steps": 0}

for batch_idx in range(4):
    x = torch.randn(4, 5, 2)
    y = torch.randn(4, 1)
    out, state["h"] = rnn(x, state["h"])  # expect: GG104
    state["steps"] += 1
    loss = ((head(out[:, -1]) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(batch_idx, loss.item())
