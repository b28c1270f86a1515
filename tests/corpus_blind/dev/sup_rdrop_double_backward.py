# corpus: R-Drop criterion already calls optimizer.backward(loss) and the task's train_step calls it again on the same loss
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/dropreg/R-Drop/issues/8
import torch
import torch.nn as nn
import torch.nn.functional as F


class FairseqOptimizer:
    def __init__(self, params, lr):
        self._optimizer = torch.optim.Adam(params, lr=lr)

    def backward(self, loss):
        loss.backward()  # also: GG101

    def step(self):
        self._optimizer.step()

    def zero_grad(self):
        self._optimizer.zero_grad()


class Summarizer(nn.Module):
    def __init__(self, vocab=30, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Dropout(0.3))
        self.out = nn.Linear(dim, vocab)

    def forward(self, src_tokens):
        return self.out(self.encoder(self.embed(src_tokens)))


class RegLabelSmoothedCrossEntropyCriterion(nn.Module):
    def __init__(self, alpha=5.0):
        super().__init__()
        self.alpha = alpha

    def compute_kl_loss(self, net_output, pad_mask=None):
        p, q = torch.chunk(net_output, 2, dim=0)
        p_loss = F.kl_div(F.log_softmax(p, dim=-1), F.softmax(q, dim=-1), reduction="sum")
        q_loss = F.kl_div(F.log_softmax(q, dim=-1), F.softmax(p, dim=-1), reduction="sum")
        return (p_loss + q_loss) / 2

    def forward_reg(self, model, sample, optimizer, reg_alpha, ignore_grad):
        sample_input = torch.cat([sample["net_input"], sample["net_input"].clone()], dim=0)
        target = torch.cat([sample["target"], sample["target"].clone()], dim=0)
        net_output = model(sample_input)
        nll = F.cross_entropy(net_output.view(-1, net_output.size(-1)), target.view(-1), reduction="sum")
        loss = nll + reg_alpha * self.compute_kl_loss(net_output)
        if ignore_grad:
            loss *= 0
        optimizer.backward(loss)  # also: GG101
        sample_size = target.numel()
        return loss, sample_size, {"loss": loss.item(), "nll_loss": nll.item()}


class RDropTranslationTask:
    def train_step(self, sample, model, criterion, optimizer, update_num, ignore_grad=False):
        model.train()
        loss, sample_size, logging_output = criterion.forward_reg(model, sample, optimizer, criterion.alpha, ignore_grad)
        if ignore_grad:
            loss *= 0
        optimizer.backward(loss)  # expect: GG101
        return loss, sample_size, logging_output


def main():
    torch.manual_seed(0)
    model = Summarizer()
    criterion = RegLabelSmoothedCrossEntropyCriterion()
    optimizer = FairseqOptimizer(model.parameters(), lr=1e-3)
    task = RDropTranslationTask()
    for update_num in range(2):
        sample = {"net_input": torch.randint(0, 30, (3, 7)), "target": torch.randint(0, 30, (3, 7))}
        optimizer.zero_grad()
        loss, sample_size, log = task.train_step(sample, model, criterion, optimizer, update_num)
        optimizer.step()
        print(update_num, log)


if __name__ == "__main__":
    main()
