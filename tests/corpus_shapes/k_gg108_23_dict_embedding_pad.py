# corpus: functional model with parameters in a dict; a helper zeroes the padding row of the embedding leaf by index assignment while autograd records
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# source: docs/rules/GG108.md (shape: 2, 3)
import torch


def init_params(vocab_size, dim):
    return {
        "emb": torch.randn(vocab_size, dim, requires_grad=True),
        "proj": torch.randn(dim, 1, requires_grad=True),
    }


def zero_padding_row(params, pad_idx):
    params["emb"][pad_idx] = 0.0  # expect: GG108


def forward(params, tokens):
    return params["emb"][tokens].mean(dim=1) @ params["proj"]


def train_one_epoch(params, batches, lr):
    losses = []
    for tokens, target in batches:
        loss = ((forward(params, tokens) - target) ** 2).mean()
        grads = torch.autograd.grad(loss, list(params.values()))
        with torch.no_grad():
            for p, g in zip(params.values(), grads):
                p -= lr * g
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    params = init_params(vocab_size=10, dim=4)
    zero_padding_row(params, pad_idx=0)
    batches = [(torch.randint(0, 10, (6, 5)), torch.randn(6, 1)) for _ in range(3)]
    for epoch in range(2):
        train_one_epoch(params, batches, lr=0.05)


if __name__ == "__main__":
    main()
