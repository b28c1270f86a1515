# corpus: practical-pytorch style seq2seq train() sums per-timestep decoder losses into one tensor, backprops once and returns loss.item() (correct)
# source: https://github.com/spro/practical-pytorch/pull/29
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

SOS_token, EOS_token = 0, 1
MAX_LENGTH = 6
teacher_forcing_ratio = 0.5


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        output, hidden = self.gru(self.embedding(input).view(1, 1, -1), hidden)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, 1, self.hidden_size)


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, max_length=MAX_LENGTH):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attn = nn.Linear(hidden_size * 2, max_length)
        self.attn_combine = nn.Linear(hidden_size * 2, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input, hidden, encoder_outputs):
        embedded = self.embedding(input).view(1, 1, -1)
        attn_weights = F.softmax(self.attn(torch.cat((embedded[0], hidden[0]), 1)), dim=1)
        attn_applied = torch.bmm(attn_weights.unsqueeze(0), encoder_outputs.unsqueeze(0))
        output = F.relu(self.attn_combine(torch.cat((embedded[0], attn_applied[0]), 1)).unsqueeze(0))
        output, hidden = self.gru(output, hidden)
        return F.log_softmax(self.out(output[0]), dim=1), hidden, attn_weights


def train(input_tensor, target_tensor, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion):
    encoder_hidden = encoder.initHidden()
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    input_length, target_length = input_tensor.size(0), target_tensor.size(0)
    encoder_outputs = torch.zeros(MAX_LENGTH, encoder.hidden_size)
    loss = 0
    for ei in range(input_length):
        encoder_output, encoder_hidden = encoder(input_tensor[ei], encoder_hidden)
        encoder_outputs[ei] = encoder_output[0, 0]
    decoder_input = torch.tensor([[SOS_token]])
    decoder_hidden = encoder_hidden
    use_teacher_forcing = random.random() < teacher_forcing_ratio
    for di in range(target_length):
        decoder_output, decoder_hidden, _ = decoder(decoder_input, decoder_hidden, encoder_outputs)
        loss += criterion(decoder_output, target_tensor[di])
        if use_teacher_forcing:
            decoder_input = target_tensor[di]
        else:
            decoder_input = decoder_output.topk(1)[1].squeeze().detach()
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    return loss.item() / target_length


def trainIters(encoder, decoder, pairs, learning_rate=0.01):
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=learning_rate)
    dec_opt = torch.optim.SGD(decoder.parameters(), lr=learning_rate)
    criterion = nn.NLLLoss()
    print_loss_total = 0
    losses = []
    for src, tgt in pairs:
        loss = train(src, tgt, encoder, decoder, enc_opt, dec_opt, criterion)
        print_loss_total += loss
        losses.append(loss)
    return losses, print_loss_total


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    encoder, decoder = EncoderRNN(12, 10), AttnDecoderRNN(10, 11)
    pairs = [(torch.randint(2, 12, (5, 1)), torch.randint(2, 11, (4, 1))) for _ in range(4)]
    losses, total = trainIters(encoder, decoder, pairs)
    assert isinstance(total, float) and all(isinstance(l, float) for l in losses)
    assert all(p.grad is not None for p in encoder.parameters())
    assert all(p.grad is not None for p in decoder.parameters())
