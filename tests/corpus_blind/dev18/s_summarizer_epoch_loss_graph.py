# corpus: Seq2seq summarizer training accumulates each batch loss tensor (still carrying its decoder graph) into the epoch total and then into the history lists, so every batch's graph stays alive across the epoch.
# source: https://github.com/JulesBelveze/text-summarizer/commit/a382761a21e9742e8d7c2f4fa724e8cfd4ccfdb9
import time

import torch
import torch.nn as nn

voc_size = 30
embedding_dim = 8
hidden_dim = 12
batch_size = 4
MAX_LEN_STORY = 7
MAX_LEN_HIGHLIGHT = 5
NUM_EPOCHS = 2
device = torch.device("cpu")


class Encoder(nn.Module):
    def __init__(self):
        super(Encoder, self).__init__()
        self.embeddings = nn.Embedding(num_embeddings=voc_size, embedding_dim=embedding_dim)
        self.lstm = nn.LSTM(input_size=embedding_dim, hidden_size=hidden_dim,
                            num_layers=1, bidirectional=False, batch_first=True)

    def forward(self, input):
        embedded = self.embeddings(input)
        output, (hidden, cell) = self.lstm(embedded)
        return output, (hidden, cell)


class Decoder(nn.Module):
    def __init__(self):
        super(Decoder, self).__init__()
        self.embeddings = nn.Embedding(num_embeddings=voc_size, embedding_dim=embedding_dim)
        self.lstm = nn.LSTM(input_size=embedding_dim, hidden_size=hidden_dim,
                            num_layers=1, bidirectional=False, batch_first=True)
        self.fc = nn.Linear(in_features=hidden_dim, out_features=voc_size)
        self.softmax = nn.LogSoftmax(dim=2)

    def forward(self, input, hidden):
        embedded = self.embeddings(input)
        output, (hidden, cell) = self.lstm(embedded, hidden)
        output = self.fc(output)
        output = self.softmax(output)
        return output, (hidden, cell)


class Seq2seq(nn.Module):
    def __init__(self, encoder, decoder):
        super(Seq2seq, self).__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, input, target):
        encoder_output, encoder_hidden = self.encoder(input)
        decoder_input = torch.tensor([2] * batch_size, dtype=torch.long, device=device).view(batch_size, -1)
        decoder_hidden = encoder_hidden

        batch_output = torch.Tensor()
        for i in range(MAX_LEN_HIGHLIGHT):
            decoder_output, decoder_hidden = self.decoder(decoder_input, decoder_hidden)
            batch_output = torch.cat((batch_output, decoder_output), 1)

        return batch_output


def make_iter(n_batches):
    return [(torch.randint(3, voc_size, (batch_size, MAX_LEN_STORY)),
             torch.randint(3, voc_size, (batch_size, MAX_LEN_HIGHLIGHT))) for _ in range(n_batches)]


def train_epoch(train_iter, test_iter, criterion, model, optimizer, vocab):
    epoch_loss_train, epoch_loss_eval = 0, 0

    model.train()
    for i, batch in enumerate(train_iter):
        batch_loss_train = 0
        optimizer.zero_grad()

        story, highlight = batch
        story = story.to(device)
        highlight = highlight.to(device)

        output = model(story, highlight)
        for sequence, target in zip(output, highlight):
            batch_loss_train += criterion(sequence, target)
        batch_loss_train.backward()
        epoch_loss_train += batch_loss_train  # expect: GG301
        optimizer.step()

    model.eval()
    for i, batch in enumerate(test_iter):
        batch_loss_eval = 0

        story, highlight = batch
        story = story.to(device)
        highlight = highlight.to(device)

        output = model(story, highlight)
        for sequence, target in zip(output, highlight):
            batch_loss_eval += criterion(sequence, target)
        epoch_loss_eval += batch_loss_eval  # also: GG301

    return epoch_loss_train / len(train_iter), epoch_loss_eval / len(test_iter)


def train(train_iter, test_iter, criterion, model, optimizer, num_epochs=NUM_EPOCHS):
    train_loss, eval_loss = [], []
    vocab = {i: "tok%d" % i for i in range(voc_size)}
    model.to(device)

    for epoch in range(num_epochs):
        start = time.time()
        epoch_loss_train, epoch_loss_eval = train_epoch(train_iter, test_iter, criterion, model, optimizer, vocab)
        train_loss.append(epoch_loss_train)
        eval_loss.append(epoch_loss_eval)
        elapsed_time = time.time() - start
        print("Epoch: {} | loss train: {} | loss eval: {} | time: {}".format(epoch, epoch_loss_train, epoch_loss_eval,
                                                                             elapsed_time))
    return train_loss


def main():
    torch.manual_seed(0)
    model = Seq2seq(Encoder(), Decoder())
    criterion = nn.NLLLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(make_iter(4), make_iter(2), criterion, model, optimizer)


if __name__ == "__main__":
    main()
