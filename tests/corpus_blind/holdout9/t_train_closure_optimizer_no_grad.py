# corpus: hand-written Lookahead-style optimizer decorates step() with @torch.no_grad() and calls the training closure without torch.enable_grad(), so the loss built inside the closure has no graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/HomebrewML/HeavyBall/issues/10
import torch
import torch.nn as nn
from torch.optim import Optimizer


class SlowFastSGD(Optimizer):
    def __init__(self, params, lr=0.05, alpha=0.5, k=3):
        super().__init__(params, dict(lr=lr, alpha=alpha, k=k))
        self.n_steps = 0

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            loss = closure()  # expect: GG106
        self.n_steps += 1
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "slow" not in state:
                    state["slow"] = p.detach().clone()
                p.add_(p.grad, alpha=-group["lr"])
                if self.n_steps % group["k"] == 0:
                    state["slow"].add_(p - state["slow"], alpha=group["alpha"])
                    p.copy_(state["slow"])
        return loss


class SegHead(nn.Module):
    def __init__(self, in_ch=3, n_classes=4):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(in_ch, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, n_classes, 1))

    def forward(self, x):
        return self.body(x)


class SegTrainer:
    def __init__(self, model):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = SlowFastSGD(model.parameters())

    def train_batch(self, images, masks):
        def closure():
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(images), masks)
            loss.backward()  # also: GG106
            return loss

        return self.optimizer.step(closure).item()


def main():
    torch.manual_seed(0)
    trainer = SegTrainer(SegHead())
    for it in range(4):
        images = torch.randn(2, 3, 8, 8)
        masks = torch.randint(0, 4, (2, 8, 8))
        print(it, trainer.train_batch(images, masks))


if __name__ == "__main__":
    main()
