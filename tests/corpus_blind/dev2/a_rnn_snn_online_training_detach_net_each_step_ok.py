# corpus: spikingjelly-style online (OTTT/FPTT) SNN training: per-time-step loss.backward() and optimizer.step(), with detach_net() detaching every neuron's membrane state after each step (correct)
# source: https://github.com/fangwei123456/spikingjelly/pull/754
import torch
import torch.nn as nn
import torch.nn.functional as F


class SurrogateSigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha=4.0):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return (x >= 0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        sg = torch.sigmoid(ctx.alpha * x)
        return grad_output * ctx.alpha * sg * (1 - sg), None


class LIFNode(nn.Module):
    def __init__(self, tau=2.0, v_threshold=1.0):
        super().__init__()
        self.tau, self.v_threshold = tau, v_threshold
        self.v = 0.0

    def reset(self):
        self.v = 0.0

    def detach(self):
        if isinstance(self.v, torch.Tensor):
            self.v.detach_()

    def forward(self, x):
        self.v = self.v + (x - self.v) / self.tau
        spike = SurrogateSigmoid.apply(self.v - self.v_threshold)
        self.v = self.v * (1.0 - spike)
        return spike


def reset_net(net):
    for m in net.modules():
        if hasattr(m, "reset"):
            m.reset()


def detach_net(net):
    for m in net.modules():
        if isinstance(m, LIFNode):
            m.detach()


def online_training(net, optimizer, x_seq, target, T):
    """Per-step forward/backward: each time step only uses the current-step graph."""
    reset_net(net)
    total_loss, y_sum = 0.0, 0.0
    for t in range(T):
        y = net(x_seq[t])
        loss = F.mse_loss(y, F.one_hot(target, 4).float()) / T
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        detach_net(net)
        total_loss += loss.item()
        y_sum = y_sum + y.detach()
    return total_loss, y_sum


if __name__ == "__main__":
    torch.manual_seed(0)
    T = 6
    net = nn.Sequential(nn.Linear(10, 16), LIFNode(), nn.Linear(16, 4), LIFNode())
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(3):
        x_seq = torch.rand(T, 8, 10) * 3
        target = torch.randint(0, 4, (8,))
        loss, y_sum = online_training(net, optimizer, x_seq, target, T)
        acc = (y_sum.argmax(1) == target).float().mean().item()
        print(f"epoch {epoch}: loss={loss:.4f} acc={acc:.2f}")
