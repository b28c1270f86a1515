# corpus: cosine-prototype classifier re-projects its weight onto the unit sphere via .data right after F.linear saved it, so the encoder receives gradients computed with the wrong weight
# source: https://discuss.pytorch.org/t/how-to-scale-weights-during-training/90796
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class PrototypeHead(nn.Module):
    def __init__(self, dim, num_classes, scale=4.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_classes, dim) * 2.0)
        self.scale = scale
        self.renorm_in_forward = True

    def forward(self, feats):
        logits = F.linear(feats, self.weight) * self.scale
        if self.renorm_in_forward:
            self.weight.data.copy_(F.normalize(self.weight.data, dim=1))  # expect: GG203
        return logits

    @torch.no_grad()
    def renorm(self):
        self.weight.copy_(F.normalize(self.weight, dim=1))


class ProtoNet(nn.Module):
    def __init__(self, in_dim=10, dim=6, num_classes=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, dim))
        self.head = PrototypeHead(dim, num_classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def encoder_grads(model, x, y, renorm_in_forward):
    model.head.renorm_in_forward = renorm_in_forward
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()  # also: GG203
    if not renorm_in_forward:
        model.head.renorm()
    return [p.grad.clone() for p in model.encoder.parameters()], model.head.weight.grad.clone()


def main():
    torch.manual_seed(0)
    model = ProtoNet()
    reference = copy.deepcopy(model)
    x, y = torch.randn(16, 10), torch.randint(0, 4, (16,))
    enc_bug, head_bug = encoder_grads(model, x, y, renorm_in_forward=True)
    enc_ref, head_ref = encoder_grads(reference, x, y, renorm_in_forward=False)
    return model, reference, enc_bug, enc_ref, head_bug, head_ref


if __name__ == "__main__":
    model, reference, enc_bug, enc_ref, head_bug, head_ref = main()
    # ground truth: both heads end with the same (normalised) weight and the head's own grad agrees ...
    assert torch.allclose(model.head.weight, reference.head.weight)
    assert torch.allclose(head_bug, head_ref, atol=1e-6)
    # ... but the gradient sent back into the encoder was computed with the overwritten weight
    assert not all(torch.allclose(a, b, atol=1e-5) for a, b in zip(enc_bug, enc_ref))
