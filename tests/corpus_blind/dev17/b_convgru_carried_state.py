# corpus: ConvGRU frame-sequence trainer that, as suggested in the report, carries h_next from step to step and from epoch to epoch without detaching it while backpropagating once per epoch, so the second epoch's backward reaches the first epoch's freed graph.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/bionick87/ConvGRUCell-pytorch/issues/2
import torch
import torch.nn.functional as f
from torch import nn


class ConvGRUCell(nn.Module):
    def __init__(self, input_size, hidden_size, kernel_size, cuda_flag):
        super().__init__()
        self.input_size = input_size
        self.cuda_flag = cuda_flag
        self.hidden_size = hidden_size
        self.kernel_size = kernel_size
        self.ConvGates = nn.Conv2d(self.input_size + self.hidden_size, 2 * self.hidden_size, 3, padding=self.kernel_size // 2)
        self.Conv_ct = nn.Conv2d(self.input_size + self.hidden_size, self.hidden_size, 3, padding=self.kernel_size // 2)

    def forward(self, input, hidden):
        if hidden is None:
            size_h = [input.data.size()[0], self.hidden_size] + list(input.data.size()[2:])
            hidden = torch.zeros(size_h)
        c1 = self.ConvGates(torch.cat((input, hidden), 1))
        (rt, ut) = c1.chunk(2, 1)
        reset_gate = torch.sigmoid(rt)
        update_gate = torch.sigmoid(ut)
        gated_hidden = torch.mul(reset_gate, hidden)
        p1 = self.Conv_ct(torch.cat((input, gated_hidden), 1))
        ct = torch.tanh(p1)
        next_h = torch.mul(update_gate, hidden) + (1 - update_gate) * ct
        return next_h


def train(num_seqs, channels_img, size_image, max_epoch, model, cuda_test):
    input_gru = torch.rand(num_seqs, 1, channels_img, size_image, size_image)
    target_gru = torch.rand(num_seqs, 1, channels_img, size_image, size_image)
    MSE_criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    h_next = None
    for e in range(max_epoch):
        err = 0
        optimizer.zero_grad()
        for time in range(num_seqs):
            h_next = model(input_gru[time], h_next)  # expect: GG104
            err += MSE_criterion(h_next[0], target_gru[time][0])
        err.backward()  # also: GG104
        optimizer.step()
        print(" ... Error: " + str(err.cpu().detach().numpy()))


def main():
    torch.manual_seed(0)
    num_seqs = 4
    hidden_size = 3
    channels_img = 3
    size_image = 8
    max_epoch = 3
    cuda_flag = False
    kernel_size = 3
    model = ConvGRUCell(channels_img, hidden_size, kernel_size, cuda_flag)
    print(repr(model))
    train(num_seqs, channels_img, size_image, max_epoch, model, cuda_flag)


if __name__ == "__main__":
    main()
