# corpus: preconditioned SGD demo on a functional LeNet5 (psgd_torch demo_LeNet5 shape): the gradients are taken with torch.autograd.grad without create_graph=True, so the Hessian-vector product grad(grads, Ws, v) that the preconditioner update needs has nothing to differentiate
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/pytorch/pytorch/issues/15532
import torch
import torch.nn.functional as F
from torch.autograd import grad


def init_weights():
    W1 = (0.1 * torch.randn(1 * 5 * 5 + 1, 6)).requires_grad_()
    W2 = (0.1 * torch.randn(6 * 5 * 5 + 1, 16)).requires_grad_()
    W3 = (0.1 * torch.randn(16 * 4 * 4 + 1, 32)).requires_grad_()
    W4 = (0.1 * torch.randn(32 + 1, 10)).requires_grad_()
    return [W1, W2, W3, W4]


def lenet5(x, Ws):
    W1, W2, W3, W4 = Ws
    x = F.conv2d(x, W1[:-1].t().reshape(6, 1, 5, 5), bias=W1[-1])
    x = F.max_pool2d(torch.tanh(x), 2)
    x = F.conv2d(x, W2[:-1].t().reshape(16, 6, 5, 5), bias=W2[-1])
    x = F.max_pool2d(torch.tanh(x), 2)
    x = torch.tanh(x.flatten(1) @ W3[:-1] + W3[-1])
    return x @ W4[:-1] + W4[-1]


def train_loss(data, target, Ws):
    return F.cross_entropy(lenet5(data, Ws), target)


def precond_update(Qs, dxs, dgs, step=0.01):
    """Diagonal PSGD preconditioner fitted on (dx, dg = H dx) pairs."""
    for Q, dx, dg in zip(Qs, dxs, dgs):
        a = Q * dg
        b = dx / Q
        grad_Q = a * a - b * b
        Q.mul_(1 - step * grad_Q / (grad_Q.abs().max() + 1e-12))


def precond_grad(Qs, grads):
    return [Q * Q * g for Q, g in zip(Qs, grads)]


def train(Ws, batches, lr=0.05):
    Qs = [torch.ones_like(W) for W in Ws]
    for it, (data, target) in enumerate(batches):
        loss = train_loss(data, target, Ws)
        grads = grad(loss, Ws)  # expect: GG202
        v = [torch.randn_like(W) for W in Ws]
        Hv = grad(grads, Ws, v)  # also: GG202
        with torch.no_grad():
            precond_update(Qs, v, Hv)
            pre_grads = precond_grad(Qs, grads)
            for W, g in zip(Ws, pre_grads):
                W.sub_(lr * g)
        print(f"iter {it} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    batches = [(torch.randn(8, 1, 28, 28), torch.randint(0, 10, (8,))) for _ in range(3)]
    train(init_weights(), batches)


if __name__ == "__main__":
    main()
