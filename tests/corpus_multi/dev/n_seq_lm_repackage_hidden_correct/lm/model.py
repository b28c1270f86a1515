import torch
import torch.nn as nn


class LanguageModel(nn.Module):
    """Character LM over one long stream: the hidden state is carried from batch to batch."""

    def __init__(self, n_tokens, embedding_size=8, hidden_size=16, nlayers=1):
        super().__init__()
        self.hidden_size = hidden_size
        self.nlayers = nlayers
        self.encoder = nn.Embedding(n_tokens, embedding_size)
        self.rnn = nn.LSTM(embedding_size, hidden_size, nlayers)
        self.decoder = nn.Linear(hidden_size, n_tokens)

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.hidden_size),
                weight.new_zeros(self.nlayers, bsz, self.hidden_size))

    def forward(self, inputs, hidden):
        rnn_output, hidden = self.rnn(self.encoder(inputs), hidden)
        return self.decoder(rnn_output), rnn_output, hidden

    @staticmethod
    def repackage_hidden(h):
        """Wraps hidden states in new tensors, to detach them from their history."""
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(LanguageModel.repackage_hidden(v) for v in h)
