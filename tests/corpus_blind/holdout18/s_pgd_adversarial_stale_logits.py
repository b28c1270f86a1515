# corpus: PGD adversarial training for a small transformer text classifier re-runs the module on perturbed embeddings but computes the adversarial loss from the old outputs, whose graph the first loss.backward() already freed.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/xiangking/ark-nlp/issues/46
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyBert(nn.Module):
    def __init__(self, vocab_size=50, hidden=16, num_labels=3):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden)
        self.encoder = nn.TransformerEncoderLayer(hidden, nhead=2, dim_feedforward=32,
                                                  dropout=0.0, batch_first=True)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, attention_mask=None, **kwargs):
        x = self.word_embeddings(input_ids)
        x = self.encoder(x)
        return self.classifier(x[:, 0])


class PGD(object):
    def __init__(self, module):
        self.module = module
        self.emb_backup = {}
        self.grad_backup = {}

    def attack(self, epsilon=1., alpha=0.3, emb_name='word_embeddings', is_first_attack=False):
        for name, param in self.module.named_parameters():
            if param.requires_grad and emb_name in name:
                if is_first_attack:
                    self.emb_backup[name] = param.data.clone()
                norm = torch.norm(param.grad)
                if norm != 0 and not torch.isnan(norm):
                    r_at = alpha * param.grad / norm
                    param.data.add_(r_at)
                    param.data = self.project(name, param.data, epsilon)

    def restore(self, emb_name='word_embeddings'):
        for name, param in self.module.named_parameters():
            if param.requires_grad and emb_name in name:
                param.data = self.emb_backup[name]
        self.emb_backup = {}

    def project(self, param_name, param_data, epsilon):
        r = param_data - self.emb_backup[param_name]
        if torch.norm(r) > epsilon:
            r = epsilon * r / torch.norm(r)
        return self.emb_backup[param_name] + r

    def backup_grad(self):
        for name, param in self.module.named_parameters():
            if param.requires_grad and param.grad is not None:
                self.grad_backup[name] = param.grad.clone()

    def restore_grad(self):
        for name, param in self.module.named_parameters():
            if param.requires_grad and param.grad is not None:
                param.grad = self.grad_backup[name]


class SequenceClassificationTask(object):
    def __init__(self, module, optimizer, K=3, n_gpu=1):
        self.module = module
        self.optimizer = optimizer
        self.pgd = PGD(module)
        self.K = K
        self.n_gpu = n_gpu

    def _get_train_loss(self, inputs, outputs, **kwargs):
        loss = F.cross_entropy(outputs, inputs['label_ids'])
        return outputs, loss

    def _on_backward(self, inputs, outputs, logits, loss, gradient_accumulation_steps=1, **kwargs):
        if self.n_gpu > 1:
            loss = loss.mean()
        if gradient_accumulation_steps > 1:
            loss = loss / gradient_accumulation_steps

        loss.backward()
        self.pgd.backup_grad()
        for t in range(self.K):
            self.pgd.attack(is_first_attack=(t == 0))
            if t != self.K - 1:
                self.module.zero_grad()
            else:
                self.pgd.restore_grad()
            logits = self.module(**inputs)
            logits, loss_adv = self._get_train_loss(inputs, outputs, **kwargs)
            if self.n_gpu > 1:
                loss_adv = loss_adv.mean()
            if gradient_accumulation_steps > 1:
                loss_adv = loss_adv / gradient_accumulation_steps
            loss_adv.backward()  # expect: GG101
        self.pgd.restore()
        return loss

    def fit(self, train_data, epochs=1):
        self.module.train()
        for epoch in range(epochs):
            epoch_loss = 0.0
            for step, inputs in enumerate(train_data):
                outputs = self.module(**inputs)
                logits, loss = self._get_train_loss(inputs, outputs)
                loss = self._on_backward(inputs, outputs, logits, loss)
                self.optimizer.step()
                self.module.zero_grad()
                epoch_loss += loss.item()
            print(f"epoch {epoch} loss {epoch_loss / len(train_data):.4f}")


def make_batches(n, batch_size=4, seq_len=6, vocab_size=50):
    return [{'input_ids': torch.randint(0, vocab_size, (batch_size, seq_len)),
             'attention_mask': torch.ones(batch_size, seq_len, dtype=torch.long),
             'label_ids': torch.randint(0, 3, (batch_size,))} for _ in range(n)]


def main():
    torch.manual_seed(0)
    module = TinyBert()
    optimizer = torch.optim.AdamW(module.parameters(), lr=1e-3)
    task = SequenceClassificationTask(module, optimizer, K=3)
    task.fit(make_batches(3), epochs=1)


if __name__ == "__main__":
    main()
