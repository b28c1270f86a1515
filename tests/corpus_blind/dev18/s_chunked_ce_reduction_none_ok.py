# corpus: Correctness harness for a chunked LM-head cross-entropy that compares it to torch's CrossEntropyLoss for every reduction; for reduction="none" the per-token losses are backpropagated with an explicit gradient= argument, which is the legitimate way to backprop a non-scalar.
# source: https://github.com/linkedin/Liger-Kernel/pull/435
import torch
import torch.nn as nn
from torch.nn import CrossEntropyLoss


class ChunkedCrossEntropyLoss(nn.Module):
    def __init__(self, ignore_index=-100, reduction="mean", chunk_size=4):
        super().__init__()
        assert reduction in {"mean", "sum", "none"}
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.chunk_size = chunk_size

    def forward(self, _input, target):
        losses = []
        for start in range(0, _input.size(0), self.chunk_size):
            logits = _input[start:start + self.chunk_size].float()
            tgt = target[start:start + self.chunk_size]
            valid = tgt != self.ignore_index
            safe_tgt = torch.where(valid, tgt, torch.zeros_like(tgt))
            lse = torch.logsumexp(logits, dim=-1)
            picked = logits.gather(1, safe_tgt.unsqueeze(1)).squeeze(1)
            losses.append(torch.where(valid, lse - picked, torch.zeros_like(lse)))
        loss_1d = torch.cat(losses)
        if self.reduction == "none":
            return loss_1d
        if self.reduction == "sum":
            return loss_1d.sum()
        n_non_ignore = (target != self.ignore_index).sum()
        return loss_1d.sum() / n_non_ignore


def _test_correctness_once(target_ce, B, T, V, reduction, scalar, dtype, atol, rtol):
    torch_ce = CrossEntropyLoss(reduction=reduction)

    _tensor = torch.randn(B * T, V, dtype=dtype) * scalar
    _input = _tensor.detach().clone().requires_grad_(True)
    _input2 = _tensor.detach().clone().requires_grad_(True)

    target = torch.randint(0, V, (B * T,), dtype=torch.long)

    output = torch_ce(_input, target)
    output2 = target_ce(_input2, target)
    assert torch.allclose(output, output2, atol=atol, rtol=rtol)

    if reduction == "none":
        output.backward(gradient=torch.ones_like(output))
        output2.backward(gradient=torch.ones_like(output))
    else:
        output.backward()
        output2.backward()
    assert torch.allclose(_input.grad, _input2.grad, atol=atol, rtol=rtol)
    return _input2.grad.abs().sum().item()


class TinyLM(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.block = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, input_ids):
        h, _ = self.block(self.embed(input_ids))
        return self.lm_head(h)


def finetune_step(model, optimizer, input_ids, attention_mask, loss_fn):
    optimizer.zero_grad()
    logits = model(input_ids[:, :-1])
    labels = input_ids[:, 1:].masked_fill(attention_mask[:, 1:] == 0, -100)
    token_loss = loss_fn(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
    weights = (labels.reshape(-1) != -100).float()
    weights = weights / weights.sum()
    token_loss.backward(gradient=weights)
    optimizer.step()
    return (token_loss * weights).sum().item()


def main():
    torch.manual_seed(0)
    for reduction in ["mean", "sum", "none"]:
        target_ce = ChunkedCrossEntropyLoss(reduction=reduction)
        g = _test_correctness_once(target_ce, B=2, T=5, V=11, reduction=reduction,
                                   scalar=1.0, dtype=torch.float32, atol=1e-5, rtol=1e-5)
        print(reduction, "grad mass", round(g, 4))

    model = TinyLM()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = ChunkedCrossEntropyLoss(reduction="none")
    for step in range(3):
        input_ids = torch.randint(0, 32, (2, 7))
        attention_mask = torch.ones(2, 7, dtype=torch.long)
        attention_mask[1, 5:] = 0
        print("step", step, "loss", finetune_step(model, optimizer, input_ids, attention_mask, loss_fn))


if __name__ == "__main__":
    main()
