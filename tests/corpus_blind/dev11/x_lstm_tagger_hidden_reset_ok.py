# corpus: LSTM part-of-speech tagger that keeps its state on self.hidden but re-initialises it before every sentence, so no graph is carried from one backward to the next; trains normally
# source: https://github.com/rguthrie3/DeepLearningForNLPInPytorch/issues/2
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

training_data = [
    ("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
    ("Everybody read that book".split(), ["NN", "V", "DET", "NN"]),
]


def prepare_sequence(seq, to_ix):
    return torch.tensor([to_ix[w] for w in seq], dtype=torch.long)


class LSTMTagger(nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.zeros(1, 1, self.hidden_dim), torch.zeros(1, 1, self.hidden_dim))

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, self.hidden = self.lstm(embeds.view(len(sentence), 1, -1), self.hidden)
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        return F.log_softmax(tag_space, dim=1)


def build_vocab(data):
    word_to_ix, tag_to_ix = {}, {}
    for sent, tags in data:
        for word in sent:
            word_to_ix.setdefault(word, len(word_to_ix))
        for tag in tags:
            tag_to_ix.setdefault(tag, len(tag_to_ix))
    return word_to_ix, tag_to_ix


def train(model, word_to_ix, tag_to_ix, epochs=4):
    loss_function = nn.NLLLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    history = []
    for epoch in range(epochs):
        epoch_loss = 0.0
        for sentence, tags in training_data:
            model.zero_grad()
            # clear out the hidden state of the LSTM, detaching it from its history on the last instance
            model.hidden = model.init_hidden()
            sentence_in = prepare_sequence(sentence, word_to_ix)
            targets = prepare_sequence(tags, tag_to_ix)
            tag_scores = model(sentence_in)
            loss = loss_function(tag_scores, targets)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        history.append(epoch_loss)
    return history


def main():
    torch.manual_seed(0)
    word_to_ix, tag_to_ix = build_vocab(training_data)
    model = LSTMTagger(6, 6, len(word_to_ix), len(tag_to_ix))
    before = model.hidden2tag.weight.detach().clone()
    history = train(model, word_to_ix, tag_to_ix)
    print("losses", [round(h, 4) for h in history])
    print("weight change", (model.hidden2tag.weight - before).abs().max().item())


if __name__ == "__main__":
    main()
