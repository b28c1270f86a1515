# corpus: LightningModule-style LSTM language model that keeps the previous step's hidden state in self.previous_hidden to carry it into the next training_step, but caches it without detaching, so the second step's backward runs into the first step's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/655
import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModule(nn.Module):
    """Just enough of the LightningModule contract for the mini trainer below."""

    def training_step(self, batch, batch_idx):
        raise NotImplementedError

    def configure_optimizers(self):
        raise NotImplementedError


class LSTMLanguageModel(LightningModule):
    def __init__(self, vocab_size=60, embed_dim=16, hidden_dim=32, lr=1e-2):
        super().__init__()
        self.vocab_size = vocab_size
        self.lr = lr
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True)
        self.decoder = nn.Linear(hidden_dim, vocab_size)
        self.previous_hidden = None  # cache

    def forward(self, text, hidden=None):
        out, hidden = self.lstm(self.embedding(text), hidden)
        return self.decoder(out), hidden

    def training_step(self, batch, batch_idx):
        text, target = batch
        output, hidden = self(text, self.previous_hidden)  # also: GG104
        self.previous_hidden = hidden  # expect: GG104
        loss = F.cross_entropy(output.reshape(-1, self.vocab_size), target.reshape(-1))
        return {"loss": loss, "log": {"train_ppl": loss.exp().item()}}

    def on_epoch_start(self):
        self.previous_hidden = None

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class Trainer:
    def __init__(self, max_epochs=1, gradient_clip_val=0.5):
        self.max_epochs = max_epochs
        self.gradient_clip_val = gradient_clip_val
        self.logged = []

    def fit(self, module, train_dataloader):
        optimizer = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            module.on_epoch_start()
            for batch_idx, batch in enumerate(train_dataloader):
                output = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                output["loss"].backward()  # also: GG104
                torch.nn.utils.clip_grad_norm_(module.parameters(), self.gradient_clip_val)
                optimizer.step()
                self.logged.append(output["log"])
        return self.logged


def bptt_batches(corpus, batch_size=4, bptt=10):
    n = corpus.size(0) // batch_size
    data = corpus[: n * batch_size].view(batch_size, n)
    batches = []
    for i in range(0, n - 1 - bptt, bptt):
        batches.append((data[:, i:i + bptt], data[:, i + 1:i + 1 + bptt]))
    return batches


def main():
    torch.manual_seed(0)
    corpus = torch.randint(0, 60, (400,))
    model = LSTMLanguageModel()
    trainer = Trainer(max_epochs=2)
    logs = trainer.fit(model, bptt_batches(corpus))
    print("last perplexity", logs[-1]["train_ppl"])


if __name__ == "__main__":
    main()
