# corpus: BERT-style MLM pretraining loop keeps an on-device running "average_loss" statistic updated with add_(loss), which chains every step's graph into the statistic and leaks memory
# source: https://github.com/NVIDIA/DeepLearningExamples/issues/1102
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyBertMLM(nn.Module):
    def __init__(self, vocab=60, dim=32, heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)
        self.mlm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids, mlm_labels):
        logits = self.mlm_head(self.encoder(self.embed(input_ids)))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), mlm_labels.view(-1), ignore_index=-100)


class DeviceStats:
    def __init__(self):
        self._stats = {}

    def device_stat(self, name):
        if name not in self._stats:
            self._stats[name] = torch.zeros(())
        return self._stats[name]


def mask_tokens(input_ids, mask_id=1, prob=0.15):
    labels = input_ids.clone()
    mask = torch.rand(input_ids.shape) < prob
    mask[:, 0] = True
    labels[~mask] = -100
    masked = input_ids.clone()
    masked[mask] = mask_id
    return masked, labels


def pretrain(model, optimizer, steps=6, log_freq=3):
    stats = DeviceStats()
    for step in range(1, steps + 1):
        input_ids = torch.randint(2, 60, (4, 10))
        masked, labels = mask_tokens(input_ids)
        loss = model(masked, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        stats.device_stat("average_loss").add_(loss)  # expect: GG301
        if step % log_freq == 0:
            avg = stats.device_stat("average_loss").item() / log_freq
            print(f"step {step} average_loss {avg:.4f}")
            stats.device_stat("average_loss").zero_()
    return stats


def main():
    torch.manual_seed(0)
    model = TinyBertMLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    pretrain(model, optimizer)


if __name__ == "__main__":
    main()
