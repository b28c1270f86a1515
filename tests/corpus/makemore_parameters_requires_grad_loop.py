# corpus: makemore-style MLP whose parameters are plain torch.randn tensors switched on in a loop (for p in parameters: p.requires_grad = True), then trained by hand; after karpathy/nn-zero-to-hero
import torch
import torch.nn.functional as F

torch.manual_seed(0)
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((27, 10), generator=g)
W1 = torch.randn((30, 200), generator=g)
b1 = torch.randn(200, generator=g)
W2 = torch.randn((200, 27), generator=g)
b2 = torch.randn(27, generator=g)
parameters = [C, W1, b1, W2, b2]
for p in parameters:
    p.requires_grad = True
Xtr = torch.randint(0, 27, (100, 3))
Ytr = torch.randint(0, 27, (100,))
for i in range(20):
    ix = torch.randint(0, Xtr.shape[0], (32,))
    emb = C[Xtr[ix]]
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    for p in parameters:
        p.data += -0.1 * p.grad
print(loss.item())
