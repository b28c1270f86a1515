# corpus: SophiaG training loop estimates the Hessian EMA from a sampled-label loss built on the logits of the training forward, whose graph loss.backward() already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/Liuhong99/Sophia/issues/1
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SophiaG(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-2, betas=(0.965, 0.99), rho=0.04, weight_decay=0.1):
        super().__init__(params, dict(lr=lr, betas=betas, rho=rho, weight_decay=weight_decay))

    @torch.no_grad()
    def update_hessian(self):
        for group in self.param_groups:
            beta2 = group["betas"][1]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "hessian" not in state:
                    state["hessian"] = torch.zeros_like(p)
                state["hessian"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)

    @torch.no_grad()
    def step(self, bs=8):
        for group in self.param_groups:
            beta1 = group["betas"][0]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "exp_avg" not in state:
                    state["exp_avg"] = torch.zeros_like(p)
                    state["hessian"] = state.get("hessian", torch.zeros_like(p))
                p.mul_(1 - group["lr"] * group["weight_decay"])
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                ratio = (state["exp_avg"].abs() / (group["rho"] * bs * state["hessian"] + 1e-15)).clamp(None, 1)
                p.addcmul_(state["exp_avg"].sign(), ratio, value=-group["lr"])


class TinyLM(nn.Module):
    def __init__(self, vocab=7, dim=8):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.GELU())
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, idx, targets=None):
        logits = self.lm_head(self.mlp(self.wte(idx)))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
        return logits, loss


def get_batch(batch_size=4, block_size=5, vocab=7):
    data = torch.randint(0, vocab, (batch_size, block_size + 1))
    return data[:, :-1], data[:, 1:]


def train(model, optimizer, max_iters=4, k=2, batch_size=4):
    iter_num = 0
    losses = []
    while iter_num < max_iters:
        X, Y = get_batch(batch_size)
        logits, loss = model(X, Y)  # also: GG102
        loss.backward()  # also: GG102
        optimizer.step(bs=batch_size * X.size(1))
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
        if iter_num % k == k - 1:
            # update hessian EMA with labels sampled from the model itself
            samp_dist = torch.distributions.Categorical(logits=logits)
            y_sample = samp_dist.sample()
            loss_sampled = F.cross_entropy(logits.view(-1, logits.size(-1)), y_sample.view(-1))  # also: GG102
            loss_sampled.backward()  # expect: GG102
            optimizer.update_hessian()
            optimizer.zero_grad(set_to_none=True)
        iter_num += 1
    return losses


def main():
    torch.manual_seed(0)
    model = TinyLM()
    optimizer = SophiaG(model.parameters())
    losses = train(model, optimizer)
    print("loss", [round(l, 3) for l in losses], "ppl", math.exp(losses[-1]))


if __name__ == "__main__":
    main()
