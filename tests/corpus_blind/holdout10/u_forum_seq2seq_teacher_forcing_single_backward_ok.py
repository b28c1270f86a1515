# corpus: correct look-alike - GRU encoder/decoder trained with teacher forcing; the decoder loop sums per-step losses (loss += criterion) and a single backward updates both encoder and decoder
# source: https://datascience.stackexchange.com/questions/53809/seq2seq-model-training-encoder-vs-decoder
import random

import torch
import torch.nn as nn
from torch import optim

torch.manual_seed(0)
random.seed(0)

SOS_token = 0
EOS_token = 1
VOCAB = 12
HIDDEN = 16
MAX_LENGTH = 6
teacher_forcing_ratio = 0.5


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        embedded = self.embedding(input).view(1, 1, -1)
        return self.gru(embedded, hidden)

    def initHidden(self):
        return torch.zeros(1, 1, self.hidden_size)


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(DecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        output = torch.relu(self.embedding(input).view(1, 1, -1))
        output, hidden = self.gru(output, hidden)
        return self.softmax(self.out(output[0])), hidden


def train(input_tensor, target_tensor, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion):
    encoder_hidden = encoder.initHidden()
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    loss = 0
    for ei in range(input_tensor.size(0)):
        _, encoder_hidden = encoder(input_tensor[ei], encoder_hidden)
    decoder_input = torch.tensor([[SOS_token]])
    decoder_hidden = encoder_hidden
    use_teacher_forcing = random.random() < teacher_forcing_ratio
    for di in range(target_tensor.size(0)):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
        loss += criterion(decoder_output, target_tensor[di])
        if use_teacher_forcing:
            decoder_input = target_tensor[di]  # teacher forcing
        else:
            topv, topi = decoder_output.topk(1)
            decoder_input = topi.squeeze().detach()  # use own prediction as next input
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss.item() / target_tensor.size(0)


def random_pair():
    src = torch.randint(2, VOCAB, (random.randint(2, MAX_LENGTH), 1))
    tgt = torch.cat([torch.flip(src, [0]), torch.tensor([[EOS_token]])])
    return src, tgt


def trainIters(encoder, decoder, n_iters=30, learning_rate=0.05):
    plot_losses = []
    encoder_optimizer = optim.SGD(encoder.parameters(), lr=learning_rate)
    decoder_optimizer = optim.SGD(decoder.parameters(), lr=learning_rate)
    criterion = nn.NLLLoss()
    for it in range(n_iters):
        src, tgt = random_pair()
        plot_losses.append(train(src, tgt, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion))
    return plot_losses


def main():
    encoder = EncoderRNN(VOCAB, HIDDEN)
    decoder = DecoderRNN(HIDDEN, VOCAB)
    losses = trainIters(encoder, decoder)
    print("avg loss first 10: %.3f, last 10: %.3f" % (sum(losses[:10]) / 10, sum(losses[-10:]) / 10))


if __name__ == "__main__":
    main()
