# corpus: seq2seq translation with an attention GRU decoder and separate encoder/decoder optimizers; train() clears only the encoder optimizer, so decoder gradients pile up across iterations, and trainIters() sums the returned loss tensors (with their graphs) for logging
# source: https://github.com/spro/practical-pytorch/issues/77
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

SOS_token = 0
EOS_token = 1
MAX_LENGTH = 8
teacher_forcing_ratio = 0.5


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, word_input, hidden):
        embedded = self.embedding(word_input).view(1, 1, -1)
        output, hidden = self.gru(embedded, hidden)
        return output, hidden

    def init_hidden(self):
        return torch.zeros(1, 1, self.hidden_size)


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1, max_length=MAX_LENGTH):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attn = nn.Linear(hidden_size * 2, max_length)
        self.attn_combine = nn.Linear(hidden_size * 2, hidden_size)
        self.dropout = nn.Dropout(dropout_p)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, word_input, hidden, encoder_outputs):
        embedded = self.dropout(self.embedding(word_input).view(1, 1, -1))
        attn_weights = F.softmax(self.attn(torch.cat((embedded[0], hidden[0]), 1)), dim=1)
        attn_applied = torch.bmm(attn_weights.unsqueeze(0), encoder_outputs.unsqueeze(0))
        output = F.relu(self.attn_combine(torch.cat((embedded[0], attn_applied[0]), 1)).unsqueeze(0))
        output, hidden = self.gru(output, hidden)
        return F.log_softmax(self.out(output[0]), dim=1), hidden, attn_weights


def train(input_variable, target_variable, encoder, decoder, encoder_optimizer, decoder_optimizer,
          criterion, max_length=MAX_LENGTH):
    encoder_hidden = encoder.init_hidden()
    encoder_optimizer.zero_grad()

    input_length = input_variable.size(0)
    target_length = target_variable.size(0)
    encoder_outputs = torch.zeros(max_length, encoder.hidden_size)
    loss = 0

    for ei in range(input_length):
        encoder_output, encoder_hidden = encoder(input_variable[ei], encoder_hidden)
        encoder_outputs[ei] = encoder_output[0][0]

    decoder_input = torch.tensor([[SOS_token]])
    decoder_hidden = encoder_hidden
    use_teacher_forcing = random.random() < teacher_forcing_ratio
    for di in range(target_length):
        decoder_output, decoder_hidden, _ = decoder(decoder_input, decoder_hidden, encoder_outputs)
        loss += criterion(decoder_output, target_variable[di])
        if use_teacher_forcing:
            decoder_input = target_variable[di]
        else:
            decoder_input = decoder_output.topk(1)[1].detach()
            if decoder_input.item() == EOS_token:
                break

    loss.backward()  # expect: GG201
    torch.nn.utils.clip_grad_norm_(encoder.parameters(), 5.0)
    torch.nn.utils.clip_grad_norm_(decoder.parameters(), 5.0)
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss / target_length


def random_pair(vocab_in, vocab_out):
    src = torch.randint(2, vocab_in, (random.randint(3, MAX_LENGTH - 1), 1))
    tgt = torch.randint(2, vocab_out, (random.randint(3, MAX_LENGTH - 1), 1))
    return torch.cat([src, torch.tensor([[EOS_token]])]), torch.cat([tgt, torch.tensor([[EOS_token]])])


def trainIters(encoder, decoder, n_iters, print_every=5, learning_rate=0.01):
    encoder_optimizer = optim.SGD(encoder.parameters(), lr=learning_rate)
    decoder_optimizer = optim.SGD(decoder.parameters(), lr=learning_rate)
    criterion = nn.NLLLoss()
    print_loss_total = 0
    for it in range(1, n_iters + 1):
        input_variable, target_variable = random_pair(20, 20)
        loss = train(input_variable, target_variable, encoder, decoder,
                     encoder_optimizer, decoder_optimizer, criterion)
        print_loss_total += loss  # expect: GG301
        if it % print_every == 0:
            print_loss_avg = print_loss_total / print_every
            print_loss_total = 0
            print(f"iter {it}: avg loss {print_loss_avg.item():.4f}")


def main():
    random.seed(0)
    torch.manual_seed(0)
    hidden_size = 16
    encoder = EncoderRNN(20, hidden_size)
    decoder = AttnDecoderRNN(hidden_size, 20)
    trainIters(encoder, decoder, n_iters=10)


if __name__ == "__main__":
    main()
