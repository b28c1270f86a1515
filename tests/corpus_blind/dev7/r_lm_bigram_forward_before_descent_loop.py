# corpus: makemore-style bigram character LM: the one-hot forward pass and loss are computed once before the gradient-descent loop, so the second iteration backpropagates the freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/karpathy/nn-zero-to-hero/issues/31
import torch
import torch.nn.functional as F


def build_dataset(words, stoi):
    xs, ys = [], []
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    return torch.tensor(xs), torch.tensor(ys)


def forward(xenc, W, ys):
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdim=True)
    return -probs[torch.arange(len(ys)), ys].log().mean() + 0.01 * (W ** 2).mean()


def main():
    words = ["emma", "olivia", "ava", "isabella", "sophia"]
    chars = sorted(set("".join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    xs, ys = build_dataset(words, stoi)
    num_classes = len(stoi)

    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((num_classes, num_classes), generator=g, requires_grad=True)

    xenc = F.one_hot(xs, num_classes=num_classes).float()
    loss = forward(xenc, W, ys)  # expect: GG103
    for k in range(10):
        print(loss.item())
        W.grad = None
        loss.backward()  # also: GG103
        W.data += -50 * W.grad


if __name__ == "__main__":
    main()
