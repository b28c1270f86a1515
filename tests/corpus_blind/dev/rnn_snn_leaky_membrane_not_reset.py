# corpus: spiking CNN-style net whose Leaky neurons keep self.mem between minibatches because forward_pass never resets the hidden states
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/jeshraghian/snntorch/issues/250
import torch
import torch.nn as nn


class FastSigmoidSpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, mem, slope=25.0):
        ctx.save_for_backward(mem)
        ctx.slope = slope
        return (mem > 0).float()

    @staticmethod
    def backward(ctx, grad_output):
        (mem,) = ctx.saved_tensors
        return grad_output / (ctx.slope * mem.abs() + 1.0) ** 2, None


class Leaky(nn.Module):
    def __init__(self, beta, threshold=1.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold
        self.mem = None

    def reset_mem(self):
        self.mem = None

    def forward(self, input_):
        if self.mem is None:
            self.mem = torch.zeros_like(input_)
        reset = (self.mem > self.threshold).float() * self.threshold
        self.mem = self.beta * self.mem + input_ - reset  # expect: GG104
        spk = FastSigmoidSpike.apply(self.mem - self.threshold)
        return spk, self.mem


def reset(net):
    for m in net.modules():
        if isinstance(m, Leaky):
            m.reset_mem()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 16)
        self.lif1 = Leaky(beta=0.9)
        self.fc2 = nn.Linear(16, 4)
        self.lif2 = Leaky(beta=0.9)

    def forward(self, x):
        spk1, _ = self.lif1(self.fc1(x))
        return self.lif2(self.fc2(spk1))


def forward_pass(net, num_steps, data):
    mem_rec, spk_rec = [], []
    # utils.reset(net) was not called here
    for step in range(num_steps):
        spk_out, mem_out = net(data[step])
        spk_rec.append(spk_out)
        mem_rec.append(mem_out)
    return torch.stack(spk_rec), torch.stack(mem_rec)


def main():
    torch.manual_seed(0)
    net = Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    num_steps = 5
    for batch in range(3):
        data = torch.rand(num_steps, 8, 20)
        targets = torch.randint(0, 4, (8,))
        spk_rec, mem_rec = forward_pass(net, num_steps, data)
        loss_val = sum(loss_fn(mem_rec[t], targets) for t in range(num_steps))
        optimizer.zero_grad()
        loss_val.backward()  # also: GG104
        optimizer.step()


if __name__ == "__main__":
    main()
