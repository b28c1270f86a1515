# corpus: text LSTM carries (h0, c0) across batches; retain_graph=True was added to silence the first error and optimizer.step() then breaks the retained graph
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://blog.youkuaiyun.com/windhawk_fly/article/details/143405685
import torch
import torch.nn as nn

EMBEDDING_DIM = 10
HIDDEN_DIM = 16
NUM_LAYERS = 2
BATCH_SIZE = 4
SEQ_LEN = 6
EPOCH = 2


class CharLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(EMBEDDING_DIM, HIDDEN_DIM, NUM_LAYERS, batch_first=True)
        self.proj = nn.Linear(HIDDEN_DIM, EMBEDDING_DIM)

    def forward(self, x, h0, c0):
        out, (hn, cn) = self.rnn(x, (h0, c0))
        return self.proj(out), (hn, cn)


def make_loader(n=3):
    return [(torch.randn(BATCH_SIZE, SEQ_LEN, EMBEDDING_DIM),
             torch.randn(BATCH_SIZE * SEQ_LEN, EMBEDDING_DIM)) for _ in range(n)]


def main():
    torch.manual_seed(0)
    lstm = CharLSTM()
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(lstm.parameters(), lr=1e-3)
    data_loader = make_loader()
    batch_count = len(data_loader)
    for epoch in range(EPOCH):
        batch_num = 0
        h0 = torch.randn((NUM_LAYERS, BATCH_SIZE, HIDDEN_DIM), requires_grad=False)
        c0 = torch.randn((NUM_LAYERS, BATCH_SIZE, HIDDEN_DIM), requires_grad=False)
        for batch in data_loader:
            optimizer.zero_grad()
            output, (h0, c0) = lstm(batch[0], h0, c0)  # expect: GG104
            loss = loss_fn(output.reshape(-1, EMBEDDING_DIM), batch[1])
            loss.backward(retain_graph=True)  # expect: GG302
            optimizer.step()  # also: GG104, GG302
            batch_num += 1
            if batch_num % min(10, batch_count // 2) == 0:
                print(f"epoch {epoch} : batch {batch_num} : {loss.item():.4f}")


if __name__ == "__main__":
    main()
