import torch
import torch.nn as nn


class LanguageModelTrainer:
    def __init__(self, model, corpus, sequence_length=5, mini_batch_size=3, lr=1.0, clip=0.25):
        self.model = model
        self.corpus = corpus
        self.sequence_length = sequence_length
        self.mini_batch_size = mini_batch_size
        self.clip = clip
        self.loss_function = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def _batchify(self, data):
        nbatch = data.size(0) // self.mini_batch_size
        return data[: nbatch * self.mini_batch_size].view(self.mini_batch_size, -1).t().contiguous()

    @staticmethod
    def _get_batch(source, i, sequence_length):
        seq_len = min(sequence_length, len(source) - 1 - i)
        return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)

    def train_epoch(self):
        self.model.train()
        train_data = self._batchify(self.corpus)
        hidden = self.model.init_hidden(self.mini_batch_size)
        total_loss, n_batches = 0.0, 0
        for i in range(0, train_data.size(0) - 1, self.sequence_length):
            data, targets = self._get_batch(train_data, i, self.sequence_length)
            # truncated BPTT: keep the values, drop the history
            hidden = self.model.repackage_hidden(hidden)
            self.model.zero_grad()
            output, rnn_output, hidden = self.model(data, hidden)
            loss = self.loss_function(output.view(-1, output.size(-1)), targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            self.optimizer.step()
            total_loss += loss.item()
            n_batches += 1
        return total_loss / n_batches
