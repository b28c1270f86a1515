# corpus: a TRPO-style helper flattens gradients with autograd.grad(y, model.parameters(), **kwargs); the Fisher-vector product calls it with create_graph=True through kwargs, so its result has a graph and the second differentiation is fine
import torch
import torch.nn as nn


def flat_grad(y, model, **kwargs):
    grads = torch.autograd.grad(y, model.parameters(), **kwargs)
    return torch.cat([g.reshape(-1) for g in grads])


def fisher_vector_product(model, obs, v, damping=0.1):
    logits = model(obs)
    kl = (logits - logits.detach()).pow(2).mean()
    kl_grad = flat_grad(kl, model, create_graph=True)
    kl_v = (kl_grad * v).sum()
    return flat_grad(kl_v, model, retain_graph=True).detach() + damping * v


torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
n = sum(p.numel() for p in policy.parameters())
print(fisher_vector_product(policy, torch.randn(16, 4), torch.randn(n)).norm())
