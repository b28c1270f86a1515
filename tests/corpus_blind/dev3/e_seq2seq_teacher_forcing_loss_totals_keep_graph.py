# corpus: seq2seq tutorial-style trainer with teacher forcing returns the loss tensor from train() and trainIters sums it into print/plot totals, so every iteration's encoder-decoder graph stays alive
# source: https://github.com/facebookresearch/ParlAI/issues/671
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

SOS_token, EOS_token = 0, 1
MAX_LENGTH = 6


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        output = self.embedding(input).view(1, 1, -1)
        return self.gru(output, hidden)

    def initHidden(self):
        return torch.zeros(1, 1, self.hidden_size)


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input, hidden):
        output = F.relu(self.embedding(input).view(1, 1, -1))
        output, hidden = self.gru(output, hidden)
        return F.log_softmax(self.out(output[0]), dim=1), hidden


def train(input_tensor, target_tensor, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion,
          teacher_forcing_ratio=0.5):
    encoder_hidden = encoder.initHidden()
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    target_length = target_tensor.size(0)
    loss = 0

    for ei in range(input_tensor.size(0)):
        _, encoder_hidden = encoder(input_tensor[ei], encoder_hidden)

    decoder_input = torch.tensor([[SOS_token]])
    decoder_hidden = encoder_hidden
    use_teacher_forcing = random.random() < teacher_forcing_ratio
    for di in range(target_length):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
        loss += criterion(decoder_output, target_tensor[di])
        if use_teacher_forcing:
            decoder_input = target_tensor[di]  # teacher forcing: feed the ground truth
        else:
            decoder_input = decoder_output.topk(1)[1].squeeze().detach()

    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss / target_length


def random_pair(vocab=12):
    length = random.randint(3, MAX_LENGTH - 1)
    src = torch.randint(2, vocab, (length, 1))
    tgt = torch.cat([src.flip(0), torch.tensor([[EOS_token]])])
    return src, tgt


def trainIters(encoder, decoder, n_iters, print_every=5, plot_every=2, learning_rate=0.01):
    start = time.time()
    plot_losses = []
    print_loss_total = 0
    plot_loss_total = 0
    encoder_optimizer = optim.SGD(encoder.parameters(), lr=learning_rate)
    decoder_optimizer = optim.SGD(decoder.parameters(), lr=learning_rate)
    training_pairs = [random_pair() for _ in range(n_iters)]
    criterion = nn.NLLLoss()

    for iter in range(1, n_iters + 1):
        input_tensor, target_tensor = training_pairs[iter - 1]
        loss = train(input_tensor, target_tensor, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion)
        print_loss_total += loss  # expect: GG301
        plot_loss_total += loss  # also: GG301

        if iter % print_every == 0:
            print("%.2fs (%d %d%%) %.4f" % (time.time() - start, iter, iter / n_iters * 100,
                                            float(print_loss_total) / print_every))
            print_loss_total = 0
        if iter % plot_every == 0:
            plot_losses.append(plot_loss_total / plot_every)  # also: GG301
            plot_loss_total = 0
    return plot_losses


if __name__ == "__main__":
    torch.manual_seed(0)
    random.seed(0)
    encoder1 = EncoderRNN(12, 16)
    decoder1 = DecoderRNN(16, 12)
    plot_losses = trainIters(encoder1, decoder1, n_iters=20)
