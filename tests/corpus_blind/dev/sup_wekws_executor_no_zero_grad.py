# corpus: keyword-spotting Executor.train does backward/clip/step every batch but never zeroes the gradients
# source: https://github.com/wenet-e2e/wekws/pull/73
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class KWSModel(nn.Module):
    def __init__(self, idim=10, hdim=16, odim=2):
        super().__init__()
        self.gru = nn.GRU(idim, hdim, batch_first=True)
        self.classifier = nn.Linear(hdim, odim)

    def forward(self, feats):
        out, _ = self.gru(feats)
        return self.classifier(out)


def criterion(kind, logits, target, lengths):
    assert kind == "max_pooling"
    logits = logits.max(dim=1).values
    loss = F.cross_entropy(logits, target)
    acc = (logits.argmax(-1) == target).float().mean().item()
    return loss, acc


class Executor:
    def __init__(self):
        self.step = 0
        self.log = []

    def train(self, model, optimizer, data_loader, args):
        model.train()
        clip = args.get("grad_clip", 50.0)
        log_interval = args.get("log_interval", 2)
        for batch_idx, (key, feats, target, feats_lengths) in enumerate(data_loader):
            logits = model(feats)
            loss, acc = criterion(args["criterion"], logits, target, feats_lengths)
            loss.backward()  # expect: GG201
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()
            if batch_idx % log_interval == 0:
                self.log.append((batch_idx, loss.item(), acc, grad_norm.item()))
            self.step += 1


def make_loader(n):
    # every utterance contains the keyword: all per-batch gradients point the same way
    return [(f"utt{i}", torch.randn(4, 6, 10) + 1.0, torch.ones(4, dtype=torch.long), torch.full((4,), 6)) for i in range(n)]


def main():
    torch.manual_seed(0)
    model = KWSModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    loader = make_loader(4)
    init_state = copy.deepcopy(model.state_dict())
    Executor().train(model, optimizer, loader, {"criterion": "max_pooling", "grad_clip": 1e6})
    return model, loader, init_state


if __name__ == "__main__":
    model, loader, init_state = main()
    # ground truth: .grad holds the sum of all four batch gradients, not the last batch's gradient
    _, feats, target, lengths = loader[-1]
    last_loss, _ = criterion("max_pooling", model(feats), target, lengths)
    fresh = torch.autograd.grad(last_loss, model.classifier.weight)[0]
    assert model.classifier.weight.grad.norm() > 2.5 * fresh.norm()
