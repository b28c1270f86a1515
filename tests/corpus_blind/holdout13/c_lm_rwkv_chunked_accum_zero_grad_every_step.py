# corpus: RWKV-style LM fine-tuning script (train-test.py shape): each document is fed in slices with the recurrent state detached between slices and each slice loss weighted by its length, and the optimizer should step every accumulation_steps documents, but optimizer.zero_grad() also runs at the top of every document, so all but the last document's gradients are thrown away
# source: https://github.com/yuunnn-w/RWKV_Pytorch/pull/22
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 48
STATE = 32


class TinyRWKV(nn.Module):
    """A toy stand-in for RWKV_RNN: token-parallel forward over a slice that carries a state."""

    def __init__(self, vocab_size=VOCAB, hidden=STATE):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, hidden)
        self.time_mix = nn.Linear(hidden, hidden)
        self.state_proj = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, vocab_size)
        self.state_size = (1, hidden)

    def forward_parallel(self, tokens, state):
        x = self.emb(tokens)  # (1, T, H)
        outs = []
        s = state
        for t in range(x.shape[1]):
            s = torch.tanh(self.time_mix(x[:, t]) + self.state_proj(s))
            outs.append(self.head(s))
        return torch.stack(outs, dim=1), s


class TextDataset(torch.utils.data.Dataset):
    def __init__(self, n_docs=8, min_len=12, max_len=30):
        rng = np.random.RandomState(0)
        self.docs = [rng.randint(1, VOCAB, size=rng.randint(min_len, max_len)).tolist() + [0]
                     for _ in range(n_docs)]

    def __len__(self):
        return len(self.docs)

    def __getitem__(self, idx):
        encoded = torch.tensor(self.docs[idx], dtype=torch.long)
        return encoded[:-1].unsqueeze(0), encoded[1:].unsqueeze(0)


def train(model, dataloader, optimizer, criterion, epochs=1, accumulation_steps=4, slice_len=8):
    device = torch.device("cpu")
    history = []
    for epoch in range(epochs):
        accumulated_loss = 0.0
        optimizer.zero_grad()
        for step, (x, y) in enumerate(dataloader, start=1):
            x = x[0].to(device)
            y = y[0].to(device)
            data_len = x.shape[1]
            state = torch.zeros(1, model.state_size[1], device=device)
            optimizer.zero_grad()  # expect: GG201
            for i in range((data_len - 2) // slice_len + 1):
                start = i * slice_len
                end = min((i + 1) * slice_len, data_len)
                x_i = x[:, start:end]
                y_i = y[0, start:end]
                current_slice_len = x_i.shape[1]
                token_out, state_new = model.forward_parallel(x_i, state)
                state = state_new.detach()  # cut the graph between slices
                loss = criterion(token_out[0], y_i)
                # weight each slice by its share of the document, and each document by the window size
                loss_weight = loss * (current_slice_len / data_len) / accumulation_steps
                accumulated_loss += loss_weight.item()
                loss_weight.backward()
            if step % accumulation_steps == 0 or step == len(dataloader):
                optimizer.step()  # also: GG201
                optimizer.zero_grad()
                history.append(accumulated_loss)
                accumulated_loss = 0.0
    return history


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    model = TinyRWKV()
    dataset = TextDataset()
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=False)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    history = train(model, dataloader, optimizer, criterion, epochs=2)
    print("avg loss per optimizer step:", [round(h, 3) for h in history])


if __name__ == "__main__":
    main()
