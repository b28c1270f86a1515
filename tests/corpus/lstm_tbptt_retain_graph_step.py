# corpus: LSTM truncated BPTT that passes retain_graph=True instead of detaching the carried state; step then breaks it
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn

torch.manual_seed(0)

lstm = nn.LSTM(4, 8)
fc = nn.Linear(8, 4)
optimizer = torch.optim.SGD([*lstm.parameters(), *fc.parameters()], lr=0.01)
sequence = torch.randn(30, 1, 4)
state = (torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))

for i in range(0, 25, 5):
    inp = sequence[i:i + 5]
    tgt = sequence[i + 1:i + 6]
    out, state = lstm(inp, state)  # expect: GG104
    loss = nn.functional.mse_loss(fc(out), tgt)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # expect: GG302
    optimizer.step()
    print(i, loss.item())
