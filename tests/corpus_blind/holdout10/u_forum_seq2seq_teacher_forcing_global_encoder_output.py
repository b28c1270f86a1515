# corpus: batched GRU seq2seq with teacher forcing whose train() copies a global encoder output (computed once in main as a shape check) into the attention buffer, so the 2nd train() call backprops through a freed encoder graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/spro/practical-pytorch/issues/27
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

torch.manual_seed(0)
random.seed(0)

MAX_LENGTH = 6
batch_size = 4
hidden_size = 8
vocab = 10
teacher_forcing_ratio = 0.5
output_from_encoder = None


class EncoderRNN(nn.Module):
    def __init__(self, input_size, batch_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.batch_size = batch_size
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        embedded = self.embedding(input).transpose(0, 1)  # (seq, batch, hidden)
        output, hidden = self.gru(embedded, hidden)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.batch_size, self.hidden_size)


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, max_length=MAX_LENGTH):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attn = nn.Linear(hidden_size * 2, max_length)
        self.attn_combine = nn.Linear(hidden_size * 2, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input, hidden, encoder_outputs):
        embedded = self.embedding(input).view(1, input.size(0), -1)
        attn_weights = F.softmax(self.attn(torch.cat((embedded[0], hidden[0]), 1)), dim=1)
        attn_applied = torch.bmm(attn_weights.unsqueeze(1), encoder_outputs.transpose(0, 1))
        output = torch.cat((embedded[0], attn_applied[:, 0]), 1)
        output = F.relu(self.attn_combine(output).unsqueeze(0))
        output, hidden = self.gru(output, hidden)
        return F.log_softmax(self.out(output[0]), dim=1), hidden


def fake_batch():
    enc = torch.randint(3, vocab, (batch_size, MAX_LENGTH - 1))
    dec = torch.randint(3, vocab, (batch_size, 4))
    return enc, dec


def train(encoder_sentences, decoder_sentences, encoder, decoder, encoder_optimizer, decoder_optimizer):
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    encoder_outputs, encoder_hidden = encoder(encoder_sentences, encoder.initHidden())
    encoder_outputs_for_decoder = torch.zeros(MAX_LENGTH, batch_size, hidden_size)
    for i in range(output_from_encoder.size(0)):
        encoder_outputs_for_decoder[i] = output_from_encoder[i]  # also: GG103
    decoder_input = torch.full((batch_size,), 2, dtype=torch.long)
    decoder_hidden = encoder_hidden
    use_teacher_forcing = random.random() < teacher_forcing_ratio
    loss = 0
    for di in range(decoder_sentences.size(1)):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden, encoder_outputs_for_decoder)
        loss = loss + F.nll_loss(decoder_output, decoder_sentences[:, di])
        if use_teacher_forcing:
            decoder_input = decoder_sentences[:, di]
        else:
            decoder_input = decoder_output.argmax(1)
    loss.backward()  # also: GG103
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss.item() / decoder_sentences.size(1)


def train_iters(encoder, decoder, n_iters=4, learning_rate=0.01):
    plot_losses = []
    encoder_optimizer = optim.SGD(encoder.parameters(), lr=learning_rate)
    decoder_optimizer = optim.SGD(decoder.parameters(), lr=learning_rate)
    for it in range(1, n_iters + 1):
        en_sen, dec_sen = fake_batch()
        plot_losses.append(train(en_sen, dec_sen, encoder, decoder, encoder_optimizer, decoder_optimizer))
    return plot_losses


def main():
    global output_from_encoder
    encoder = EncoderRNN(vocab, batch_size, hidden_size)
    decoder = AttnDecoderRNN(hidden_size, vocab)
    en_sen, _ = fake_batch()
    # sanity check of the encoder output shape (left over from the notebook)
    output_from_encoder, _ = encoder(en_sen, encoder.initHidden())  # expect: GG103
    print(output_from_encoder.size())
    print(train_iters(encoder, decoder))


if __name__ == "__main__":
    main()
