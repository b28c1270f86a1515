# corpus: GRU encoder / local-attention decoder seq2seq trainer (shape of the pytorch issue's EncoderRNN + LocalAttention code): train() returns the per-pair loss tensor and trainIters adds it to print_loss_total without .item(), so every pair's whole encoder/decoder graph stays referenced and memory keeps growing
# source: https://github.com/pytorch/pytorch/issues/13843
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

SOS, EOS = 0, 1


class EncoderRNN(nn.Module):
    def __init__(self, vocab_size, embedding_size, gru_size):
        super().__init__()
        self.gru_size = gru_size
        self.embedding = nn.Embedding(vocab_size, embedding_size)
        self.gru = nn.GRU(embedding_size, gru_size)

    def forward(self, sentence, hidden):
        embeddings = torch.tanh(self.embedding(sentence))
        return self.gru(embeddings, hidden)

    def init_hidden(self):
        return torch.zeros(1, 1, self.gru_size)


class LocalAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W = nn.Linear(dim, dim, bias=False)

    def forward(self, decoder_hidden, encoder_out):
        keys = self.W(encoder_out).permute(1, 0, 2)
        energies = keys @ decoder_hidden.permute(1, 2, 0)
        mask = F.softmax(energies, dim=1)
        return (encoder_out.permute(1, 2, 0) @ mask).permute(2, 0, 1)


class AttnDecoderRNN(nn.Module):
    def __init__(self, vocab_size, embedding_size, gru_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_size)
        self.gru = nn.GRU(embedding_size + gru_size, gru_size)
        self.attn = LocalAttention(gru_size)
        self.out = nn.Linear(gru_size, vocab_size)

    def forward(self, token, hidden, encoder_out):
        context = self.attn(hidden, encoder_out)
        emb = self.embedding(token).view(1, 1, -1)
        output, hidden = self.gru(torch.cat([emb, context], dim=-1), hidden)
        return F.log_softmax(self.out(output[0]), dim=1), hidden


def train(input_tensor, target_tensor, encoder, decoder, enc_opt, dec_opt, criterion, teacher_forcing=0.5):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    encoder_out, hidden = encoder(input_tensor, encoder.init_hidden())
    token = torch.tensor([[SOS]])
    loss = 0
    for di in range(target_tensor.size(0)):
        log_probs, hidden = decoder(token, hidden, encoder_out)
        loss = loss + criterion(log_probs, target_tensor[di])
        if random.random() < teacher_forcing:
            token = target_tensor[di].view(1, 1)
        else:
            token = log_probs.argmax(dim=1).detach().view(1, 1)
    loss.backward()
    enc_opt.step()
    dec_opt.step()
    return loss / target_tensor.size(0)


def random_pair(vocab_size, length=6):
    src = torch.randint(2, vocab_size, (length, 1))
    tgt = torch.cat([src.flip(0).view(-1), torch.tensor([EOS])]).view(-1, 1)
    return src, tgt


def train_iters(encoder, decoder, n_iters, vocab_size, print_every=10, lr=0.01):
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=lr)
    dec_opt = torch.optim.SGD(decoder.parameters(), lr=lr)
    criterion = nn.NLLLoss()
    print_loss_total = 0
    history = []
    for it in range(1, n_iters + 1):
        src, tgt = random_pair(vocab_size)
        loss = train(src, tgt, encoder, decoder, enc_opt, dec_opt, criterion)
        print_loss_total += loss  # expect: GG301
        if it % print_every == 0:
            history.append(print_loss_total / print_every)
            print(f"iter {it} avg loss {history[-1].item():.4f}")
            print_loss_total = 0
    return history, print_loss_total


def main():
    random.seed(0)
    torch.manual_seed(0)
    vocab = 12
    encoder = EncoderRNN(vocab, 16, 24)
    decoder = AttnDecoderRNN(vocab, 16, 24)
    train_iters(encoder, decoder, n_iters=25, vocab_size=vocab)


if __name__ == "__main__":
    main()
