# corpus: continual-learning LoRA ViT block (CL-LoRA shape) with a learnable one-element task gate: forward computes gate = sigmoid(gate_logit), uses it to scale the LoRA branch, then masks the same gate in place for the old-task branch with gate.mul_(...), overwriting the sigmoid output autograd saved, so the learner's backward fails on a [1] tensor
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/JiangpengHe/CL-LoRA/issues/4
import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALinear(nn.Module):
    def __init__(self, dim, r=4):
        super().__init__()
        self.base = nn.Linear(dim, dim)
        self.base.weight.requires_grad_(False)
        self.base.bias.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(r, dim) * 0.02)
        self.lora_B = nn.Parameter(torch.zeros(dim, r))

    def delta(self, x):
        return x @ self.lora_A.t() @ self.lora_B.t()


class CLLoRABlock(nn.Module):
    def __init__(self, dim=16, r=4):
        super().__init__()
        self.shared = LoRALinear(dim, r)
        self.specific = LoRALinear(dim, r)
        self.gate_logit = nn.Parameter(torch.zeros(1))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, old_task_mask):
        gate = torch.sigmoid(self.gate_logit)
        h = self.shared.base(x) + gate * self.specific.delta(x)
        gate.mul_(old_task_mask)  # expect: GG107
        h = h + (1 - gate) * self.shared.delta(x)
        return self.norm(F.gelu(h))


class CLLoRANet(nn.Module):
    def __init__(self, dim=16, n_cls=10):
        super().__init__()
        self.blocks = nn.ModuleList([CLLoRABlock(dim) for _ in range(2)])
        self.head = nn.Linear(dim, n_cls)

    def forward(self, tokens, old_task_mask):
        x = tokens
        for blk in self.blocks:
            x = blk(x, old_task_mask)
        return self.head(x.mean(1))


class Learner:
    def __init__(self, net, init_lr=0.03):
        self.net = net
        params = [p for p in net.parameters() if p.requires_grad]
        self.optimizer = torch.optim.SGD(params, lr=init_lr, momentum=0.9)

    def _init_train(self, batches, old_task_mask):
        for epoch, (tokens, targets) in enumerate(batches):
            logits = self.net(tokens, old_task_mask)
            loss = F.cross_entropy(logits, targets)
            self.optimizer.zero_grad()
            loss.backward()  # also: GG107
            self.optimizer.step()
            print(f"epoch {epoch} loss {loss.item():.4f}")

    def incremental_train(self, task_id):
        batches = [(torch.randn(8, 5, 16), torch.randint(0, 10, (8,))) for _ in range(3)]
        mask = torch.ones(1) if task_id == 0 else torch.full((1,), 0.5)
        self._init_train(batches, mask)


def main():
    torch.manual_seed(1993)
    learner = Learner(CLLoRANet())
    for task in range(2):
        learner.incremental_train(task)


if __name__ == "__main__":
    main()
