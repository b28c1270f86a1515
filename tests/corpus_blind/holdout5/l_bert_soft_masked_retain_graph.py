# corpus: Soft-Masked BERT spelling-correction fine-tuning; the [MASK] embedding is computed once in the model's __init__ through the trainable BERT embeddings, and every training step backpropagates through it with loss.backward(retain_graph=True), which only hides the reuse until the optimizer step has changed the embedding weights
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/hiyoung123/SoftMaskedBert/issues/16
import argparse

import torch
import torch.nn as nn
from torch.optim import Adam


class BertEmbeddings(nn.Module):
    def __init__(self, vocab_size, hidden_size, max_position=64, dropout=0.1):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(max_position, hidden_size)
        self.token_type_embeddings = nn.Embedding(2, hidden_size)
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=1e-12)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input_ids):
        seq_len = input_ids.size(1)
        position_ids = torch.arange(seq_len).unsqueeze(0).expand_as(input_ids)
        token_type_ids = torch.zeros_like(input_ids)
        emb = self.word_embeddings(input_ids) + self.position_embeddings(position_ids) + self.token_type_embeddings(token_type_ids)
        return self.dropout(self.LayerNorm(emb))


class TinyBert(nn.Module):
    def __init__(self, vocab_size, hidden_size, heads, layers):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab_size, hidden_size)
        layer = nn.TransformerEncoderLayer(hidden_size, heads, dim_feedforward=2 * hidden_size, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


class BiGRU(nn.Module):
    def __init__(self, embedding_size, hidden, n_layers, dropout=0.0):
        super().__init__()
        self.rnn = nn.GRU(embedding_size, hidden, num_layers=n_layers, bidirectional=True, dropout=dropout, batch_first=True)
        self.linear = nn.Linear(hidden * 2, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        out, _ = self.rnn(x)
        prob = self.sigmoid(self.linear(out))
        return prob


class SoftMaskedBert(nn.Module):
    def __init__(self, bert, mask_token_id, vocab_size, hidden, layer_n):
        super().__init__()
        self.bert = bert
        self.embedding = bert.embeddings
        self.embedding_size = bert.embeddings.word_embeddings.embedding_dim
        self.detector = BiGRU(self.embedding_size, hidden, layer_n)
        self.corrector = bert.encoder
        mask_token_id = torch.tensor([[mask_token_id]])
        self.mask_e = self.embedding(mask_token_id)
        self.linear = nn.Linear(self.embedding_size, vocab_size)
        self.softmax = nn.LogSoftmax(dim=-1)

    def forward(self, input_ids):
        e = self.embedding(input_ids)
        p = self.detector(e)
        e_ = p * self.mask_e + (1 - p) * e
        h = self.corrector(e_, src_key_padding_mask=input_ids.eq(0))
        h = h + e
        out = self.softmax(self.linear(h))
        return out, p


class ScheduledOptim:
    def __init__(self, optimizer, d_model, n_warmup_steps):
        self._optimizer = optimizer
        self.n_warmup_steps = n_warmup_steps
        self.n_current_steps = 0
        self.init_lr = d_model ** -0.5

    def step_and_update_lr(self):
        self._update_learning_rate()
        self._optimizer.step()

    def zero_grad(self):
        self._optimizer.zero_grad()

    def _update_learning_rate(self):
        self.n_current_steps += 1
        lr = self.init_lr * min(self.n_current_steps ** -0.5, self.n_current_steps * self.n_warmup_steps ** -1.5)
        for param_group in self._optimizer.param_groups:
            param_group["lr"] = lr


class SoftMaskedBertTrainer:
    def __init__(self, bert, mask_token_id, vocab_size, hidden=16, layer_n=1, lr=2e-5, gama=0.8, betas=(0.9, 0.999), weight_decay=0.01, warmup_steps=100):
        self.model = SoftMaskedBert(bert, mask_token_id, vocab_size, hidden, layer_n)
        self.optim = Adam(self.model.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
        self.optim_schedule = ScheduledOptim(self.optim, hidden, n_warmup_steps=warmup_steps)
        self.criterion_c = nn.NLLLoss()
        self.criterion_d = nn.BCELoss()
        self.gama = gama
        self.log_freq = 1

    def train(self, train_data, epoch):
        self.model.train()
        return self.iteration(epoch, train_data)

    def iteration(self, epoch, data_loader, train=True):
        avg_loss = 0.0
        total_correct = 0
        total_element = 0
        for i, data in enumerate(data_loader):
            out, prob = self.model(data["random_text"])
            prob = prob.reshape(-1, prob.shape[1])
            loss_d = self.criterion_d(prob, data["label"].float())
            loss_c = self.criterion_c(out.transpose(1, 2), data["origin_text"])
            loss = self.gama * loss_c + (1 - self.gama) * loss_d
            if train:
                self.optim_schedule.zero_grad()
                loss.backward(retain_graph=True)  # expect: GG302
                self.optim_schedule.step_and_update_lr()
            correct = out.argmax(dim=-1).eq(data["origin_text"]).sum().item()
            avg_loss += loss.item()
            total_correct += correct
            total_element += data["label"].nelement()
            if i % self.log_freq == 0:
                print({"epoch": epoch, "iter": i, "avg_loss": avg_loss / (i + 1), "avg_acc": total_correct / total_element * 100})
        return avg_loss / len(data_loader)


def make_loader(n_batches, vocab_size, bs=2, seq_len=8):
    batches = []
    for _ in range(n_batches):
        origin = torch.randint(5, vocab_size, (bs, seq_len))
        label = (torch.rand(bs, seq_len) < 0.15).long()
        random_text = torch.where(label.bool(), torch.randint(5, vocab_size, (bs, seq_len)), origin)
        batches.append({"origin_text": origin, "random_text": random_text, "label": label})
    return batches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab_size", type=int, default=40)
    parser.add_argument("--hidden_size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    mask_token_id = 4
    bert = TinyBert(args.vocab_size, args.hidden_size, heads=2, layers=1)
    trainer = SoftMaskedBertTrainer(bert, mask_token_id, args.vocab_size)
    train_loader = make_loader(3, args.vocab_size)
    for e in range(args.epochs):
        trainer.train(train_loader, e)


if __name__ == "__main__":
    main()
