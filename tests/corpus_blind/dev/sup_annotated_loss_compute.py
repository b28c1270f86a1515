# corpus: SimpleLossCompute always calls loss.backward(); the validation epoch runs it under torch.no_grad() with opt=None
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/harvardnlp/annotated-transformer/issues/14
import torch
import torch.nn as nn


class Generator(nn.Module):
    "Define standard linear + softmax generation step."

    def __init__(self, d_model, vocab):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x):
        return torch.log_softmax(self.proj(x), dim=-1)


class TinySeq2Seq(nn.Module):
    def __init__(self, vocab=11, d_model=16):
        super().__init__()
        self.src_embed = nn.Embedding(vocab, d_model)
        self.encoder = nn.GRU(d_model, d_model, batch_first=True)
        self.generator = Generator(d_model, vocab)

    def forward(self, src):
        out, _ = self.encoder(self.src_embed(src))
        return out


class SimpleLossCompute:
    "A simple loss compute and train function."

    def __init__(self, generator, criterion, opt=None):
        self.generator = generator
        self.criterion = criterion
        self.opt = opt

    def __call__(self, x, y, norm):
        x = self.generator(x)
        loss = self.criterion(x.contiguous().view(-1, x.size(-1)), y.contiguous().view(-1)) / norm
        loss.backward()  # expect: GG106
        if self.opt is not None:
            self.opt.step()
            self.opt.zero_grad()
        return loss.item() * norm


class Batch:
    def __init__(self, src):
        self.src = src
        self.trg_y = src.flip(1)
        self.ntokens = int(self.trg_y.numel())


def data_gen(V, batch, nbatches):
    for _ in range(nbatches):
        yield Batch(torch.randint(1, V, (batch, 7)))


def run_epoch(data_iter, model, loss_compute):
    total_tokens = 0
    total_loss = 0.0
    for i, batch in enumerate(data_iter):
        out = model(batch.src)
        loss = loss_compute(out, batch.trg_y, batch.ntokens)
        total_loss += loss
        total_tokens += batch.ntokens
    return total_loss / total_tokens


def main():
    torch.manual_seed(0)
    V = 11
    model = TinySeq2Seq(V)
    criterion = nn.NLLLoss(reduction="sum")
    model_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        model.train()
        train_loss = run_epoch(data_gen(V, 8, 4), model, SimpleLossCompute(model.generator, criterion, model_opt))
        model.eval()
        with torch.no_grad():
            val_loss = run_epoch(data_gen(V, 8, 2), model, SimpleLossCompute(model.generator, criterion, None))  # also: GG106
        print(epoch, train_loss, val_loss)


if __name__ == "__main__":
    main()
