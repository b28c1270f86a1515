# corpus: text-classification benchmark script calls optimizer.zero_grad() once before the batch loop, so every step applies the running sum of all previous batches' gradients
# source: https://github.com/FreedomIntelligence/TextClassificationBenchmark/issues/20
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.modules.loss import NLLLoss


def parse_opt():
    return SimpleNamespace(model="lstm", vocab_size=40, embedding_dim=8, hidden_dim=12, label_size=3,
                           batch_size=4, learning_rate=1e-3, grad_clip=5e-1, max_len=7)


class LSTMClassifier(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.word_embeddings = nn.Embedding(opt.vocab_size, opt.embedding_dim)
        self.lstm = nn.LSTM(opt.embedding_dim, opt.hidden_dim, batch_first=True)
        self.hidden2label = nn.Linear(opt.hidden_dim, opt.label_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds)  # fresh zero state per batch
        y = self.hidden2label(lstm_out[:, -1])
        return torch.log_softmax(y, dim=1)


def setup(opt):
    models = {"lstm": LSTMClassifier}
    return models[opt.model](opt)


def clip_gradient(optimizer, grad_clip):
    for group in optimizer.param_groups:
        for param in group["params"]:
            if param.grad is not None:
                param.grad.data.clamp_(-grad_clip, grad_clip)


def load_data(opt, n_batches=5):
    batches = []
    for _ in range(n_batches):
        text = torch.randint(0, opt.vocab_size, (opt.batch_size, opt.max_len))
        label = torch.randint(0, opt.label_size, (opt.batch_size,))
        batches.append(SimpleNamespace(text=(text, None), label=label))
    return batches[:-1], batches[-1:]


@torch.no_grad()
def evaluation(model, test_iter):
    model.eval()
    correct, total = 0, 0
    for batch in test_iter:
        predicted = model(batch.text[0]).argmax(dim=1)
        correct += (predicted == batch.label).sum().item()
        total += batch.label.numel()
    print("test acc: %.3f" % (correct / total))


def main():
    torch.manual_seed(0)
    opt = parse_opt()
    train_iter, test_iter = load_data(opt)
    model = setup(opt)
    model.train()
    optimizer = optim.Adam(model.parameters(), lr=opt.learning_rate)
    optimizer.zero_grad()  # also: GG201
    loss_fun = NLLLoss()
    for index, batch in enumerate(train_iter):
        if len(batch.text[0]) == opt.batch_size:
            predicted = model(batch.text[0])
            loss = loss_fun(predicted, batch.label)
            loss.backward()  # expect: GG201
            clip_gradient(optimizer, opt.grad_clip)
            optimizer.step()  # also: GG201
            print("loss : %.5f" % loss.item())
    evaluation(model, test_iter)


if __name__ == "__main__":
    main()
