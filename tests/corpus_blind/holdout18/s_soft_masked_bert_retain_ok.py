# corpus: Soft-Masked BERT spelling-correction trainer sums the detection and correction losses and calls backward(retain_graph=True) once per batch; the flag is unnecessary but harmless because nothing from the batch graph is reused in the next iteration.
# source: https://github.com/hiyoung123/SoftMaskedBert/issues/15
import torch
import torch.nn as nn
from torch.optim import Adam


class ScheduledOptim():
    def __init__(self, optimizer, d_model, n_warmup_steps):
        self._optimizer = optimizer
        self.n_warmup_steps = n_warmup_steps
        self.n_current_steps = 0
        self.init_lr = d_model ** -0.5

    def step_and_update_lr(self):
        self._update_learning_rate()
        self._optimizer.step()

    def zero_grad(self):
        self._optimizer.zero_grad()

    def _get_lr_scale(self):
        return min(self.n_current_steps ** -0.5, (self.n_warmup_steps ** -1.5) * self.n_current_steps)

    def _update_learning_rate(self):
        self.n_current_steps += 1
        lr = self.init_lr * self._get_lr_scale()
        for param_group in self._optimizer.param_groups:
            param_group['lr'] = lr


class SoftMaskedBert(nn.Module):
    def __init__(self, vocab_size, mask_token_id, hidden=16, layer_n=1):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, hidden)
        self.mask_token_id = mask_token_id
        self.detector = nn.GRU(hidden, hidden // 2, layer_n, bidirectional=True, batch_first=True)
        self.linear = nn.Linear(hidden, 1)
        self.corrector = nn.TransformerEncoderLayer(hidden, nhead=2, dim_feedforward=32,
                                                    dropout=0.0, batch_first=True)
        self.output = nn.Linear(hidden, vocab_size)
        self.log_softmax = nn.LogSoftmax(dim=-1)

    def forward(self, input_ids):
        e = self.embedding(input_ids)
        h, _ = self.detector(e)
        p = torch.sigmoid(self.linear(h))
        mask_e = self.embedding(torch.full_like(input_ids, self.mask_token_id))
        e_ = p * mask_e + (1 - p) * e
        h = self.corrector(e_) + e
        out = self.log_softmax(self.output(h))
        return out, p


class SoftMaskedBertTrainer():
    def __init__(self, vocab_size, device, hidden=16, layer_n=1, lr=2e-5, gama=0.8, warmup_steps=10):
        self.device = device
        self.model = SoftMaskedBert(vocab_size, vocab_size - 1, hidden, layer_n).to(self.device)
        self.optim = Adam(self.model.parameters(), lr=lr, betas=(0.9, 0.999), weight_decay=0.01)
        self.optim_schedule = ScheduledOptim(self.optim, hidden, n_warmup_steps=warmup_steps)
        self.criterion_c = nn.NLLLoss()
        self.criterion_d = nn.BCELoss()
        self.gama = gama
        self.log_freq = 1

    def train(self, train_data, epoch):
        self.model.train()
        return self.iteration(epoch, train_data)

    def evaluate(self, val_data, epoch):
        self.model.eval()
        return self.iteration(epoch, val_data, train=False)

    def iteration(self, epoch, data_loader, train=True):
        str_code = "train" if train else "val"
        avg_loss = 0.0
        total_correct = 0
        total_element = 0

        for i, data in enumerate(data_loader):
            data = {key: value.to(self.device) for key, value in data.items()}

            out, prob = self.model(data["random_text"])
            prob = prob.reshape(-1, prob.shape[1])
            loss_d = self.criterion_d(prob, data['label'].float())
            loss_c = self.criterion_c(out.transpose(1, 2), data["origin_text"])
            loss = self.gama * loss_c + (1 - self.gama) * loss_d

            if train:
                self.optim_schedule.zero_grad()
                loss.backward(retain_graph=True)
                self.optim_schedule.step_and_update_lr()

            correct = out.argmax(dim=-1).eq(data["origin_text"]).sum().item()
            avg_loss += loss.item()
            total_correct += correct
            total_element += data["label"].nelement()

            post_fix = {"epoch": epoch, "iter": i, "avg_loss": avg_loss / (i + 1),
                        "avg_acc": total_correct / total_element * 100, "loss": loss.item()}
            if i % self.log_freq == 0:
                print(str(post_fix))

        print("EP%d_%s, avg_loss=" % (epoch, str_code), avg_loss / len(data_loader),
              "total_acc=", total_correct * 100.0 / total_element)
        return avg_loss / len(data_loader)


def make_data(n, vocab_size=50, batch=4, seq_len=8):
    data = []
    for _ in range(n):
        origin = torch.randint(1, vocab_size - 1, (batch, seq_len))
        label = (torch.rand(batch, seq_len) < 0.2).long()
        noise = torch.randint(1, vocab_size - 1, (batch, seq_len))
        random_text = torch.where(label.bool(), noise, origin)
        data.append({'origin_text': origin, 'random_text': random_text, 'label': label})
    return data


if __name__ == '__main__':
    torch.manual_seed(0)
    device = torch.device("cpu")
    trainer = SoftMaskedBertTrainer(50, device)
    train_data, val_data = make_data(3), make_data(1)
    best_loss = 100000
    for e in range(2):
        trainer.train(train_data, e)
        val_loss = trainer.evaluate(val_data, e)
        if best_loss > val_loss:
            best_loss = val_loss
            print('Best val loss {}'.format(best_loss))
