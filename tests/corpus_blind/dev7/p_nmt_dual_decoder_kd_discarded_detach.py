# corpus: dual-decoder translation model trained jointly with a word-level distillation term from the teacher decoder to the student decoder; `teacher_probs.detach()` is written as a bare statement, so the KD term still backpropagates into the teacher decoder
# source: https://github.com/pytorch/translate/pull/391
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Decoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, prev_tokens, encoder_out):
        h, _ = self.rnn(self.embed(prev_tokens), encoder_out.unsqueeze(0))
        return self.out(h)


class DualDecoderModel(nn.Module):
    def __init__(self, vocab=40, dim=16):
        super().__init__()
        self.encoder = nn.EmbeddingBag(vocab, dim)
        self.teacher_decoder = Decoder(vocab, 2 * dim)
        self.student_decoder = Decoder(vocab, dim)
        self.bridge = nn.Linear(dim, 2 * dim)

    def forward(self, src_tokens, prev_tokens):
        enc = torch.tanh(self.encoder(src_tokens))
        teacher_logits = self.teacher_decoder(prev_tokens, self.bridge(enc))
        student_logits = self.student_decoder(prev_tokens, enc)
        return teacher_logits, student_logits


class DualDecoderCriterion:
    def __init__(self, kd_weight, temperature):
        self.kd_weight = kd_weight
        self.temperature = temperature

    def compute_loss(self, teacher_logits, student_logits, target):
        vocab = teacher_logits.size(-1)
        teacher_nll = F.cross_entropy(teacher_logits.reshape(-1, vocab), target.reshape(-1))
        student_nll = F.cross_entropy(student_logits.reshape(-1, vocab), target.reshape(-1))
        teacher_probs = F.softmax(teacher_logits / self.temperature, dim=-1)
        teacher_probs.detach()  # expect: GG112
        student_lprobs = F.log_softmax(student_logits / self.temperature, dim=-1)
        kd_loss = -(teacher_probs * student_lprobs).sum(-1).mean()
        total = teacher_nll + (1 - self.kd_weight) * student_nll + self.kd_weight * kd_loss
        return total, {"teacher_nll": teacher_nll.item(), "student_nll": student_nll.item(), "kd": kd_loss.item()}


def train(args):
    torch.manual_seed(0)
    model = DualDecoderModel()
    criterion = DualDecoderCriterion(args.kd_weight, args.temperature)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for step in range(args.max_update):
        src = torch.randint(0, 40, (4, 7))
        tgt = torch.randint(0, 40, (4, 6))
        prev = torch.cat([torch.zeros(4, 1, dtype=torch.long), tgt[:, :-1]], dim=1)
        teacher_logits, student_logits = model(src, prev)
        loss, logs = criterion.compute_loss(teacher_logits, student_logits, tgt)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, logs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kd_weight", type=float, default=0.5)
    parser.add_argument("--temperature", type=float, default=2.0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--max_update", type=int, default=3)
    train(parser.parse_args([]))


if __name__ == "__main__":
    main()
