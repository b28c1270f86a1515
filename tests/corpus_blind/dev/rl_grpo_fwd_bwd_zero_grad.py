# corpus: RL policy trainer with a forward_backward()/optim_step() API clears grads inside forward_backward, so gradient accumulation over micro-batches keeps only the last one
# source: https://github.com/pytorch/torchtitan/pull/3575
import copy

import torch
import torch.nn as nn


class PolicyModel(nn.Module):
    def __init__(self, vocab=16, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        return torch.log_softmax(self.lm_head(self.embed(tokens)), dim=-1)


def grpo_advantages(rewards, group_size):
    r = rewards.view(-1, group_size)
    adv = (r - r.mean(dim=1, keepdim=True)) / (r.std(dim=1, keepdim=True) + 1e-6)
    return adv.view(-1)


def policy_loss(model, mb):
    logp = model(mb["tokens"]).gather(-1, mb["targets"].unsqueeze(-1)).squeeze(-1)
    return -(logp.sum(-1) * mb["advantages"]).mean() / mb["num_microbatches"]


class RLTrainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.metrics = {"loss": []}

    def forward_backward(self, microbatch):
        self.optimizer.zero_grad()  # also: GG201
        loss = policy_loss(self.model, microbatch)
        loss.backward()  # expect: GG201
        self.metrics["loss"].append(loss.item())

    def optim_step(self):
        self.optimizer.step()


def make_microbatches(n_mb=3, per_mb=4, seq=5, vocab=16, group_size=4):
    mbs = []
    for _ in range(n_mb):
        rewards = torch.rand(per_mb)
        mbs.append({
            "tokens": torch.randint(0, vocab, (per_mb, seq)),
            "targets": torch.randint(0, vocab, (per_mb, seq)),
            "advantages": grpo_advantages(rewards, group_size),
            "num_microbatches": n_mb,
        })
    return mbs


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = RLTrainer(PolicyModel())
    microbatches = make_microbatches()
    reference = copy.deepcopy(trainer.model)
    for mb in microbatches:
        trainer.forward_backward(mb)
    trainer.optim_step()
    # ground truth: the accumulated grad equals the LAST micro-batch's grad only, not the sum over micro-batches
    full = torch.autograd.grad(sum(policy_loss(reference, mb) for mb in microbatches), reference.lm_head.weight)[0]
    last = torch.autograd.grad(policy_loss(reference, microbatches[-1]), reference.lm_head.weight)[0]
    assert torch.allclose(trainer.model.lm_head.weight.grad, last, atol=1e-6)
    assert not torch.allclose(trainer.model.lm_head.weight.grad, full, atol=1e-4)
