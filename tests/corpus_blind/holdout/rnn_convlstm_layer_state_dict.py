# corpus: multi-layer ConvLSTM streams consecutive video clips and stores each layer's (h, c) in a dict for the next clip without detaching
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/ndrplz/ConvLSTM_pytorch/issues/21
import torch
import torch.nn as nn


class ConvLSTMCell(nn.Module):
    def __init__(self, input_dim, hidden_dim, kernel_size=3):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.conv = nn.Conv2d(input_dim + hidden_dim, 4 * hidden_dim, kernel_size, padding=kernel_size // 2)

    def forward(self, x, cur_state):
        h_cur, c_cur = cur_state
        combined_conv = self.conv(torch.cat([x, h_cur], dim=1))
        cc_i, cc_f, cc_o, cc_g = torch.split(combined_conv, self.hidden_dim, dim=1)
        i, f, o, g = torch.sigmoid(cc_i), torch.sigmoid(cc_f), torch.sigmoid(cc_o), torch.tanh(cc_g)
        c_next = f * c_cur + i * g
        h_next = o * torch.tanh(c_next)
        return h_next, c_next

    def init_hidden(self, batch_size, image_size):
        h, w = image_size
        return (torch.zeros(batch_size, self.hidden_dim, h, w),
                torch.zeros(batch_size, self.hidden_dim, h, w))


class ConvLSTM(nn.Module):
    def __init__(self, input_dim, hidden_dims):
        super().__init__()
        dims = [input_dim] + list(hidden_dims)
        self.cell_list = nn.ModuleList(ConvLSTMCell(dims[i], dims[i + 1]) for i in range(len(hidden_dims)))
        self.last_state = {}

    def forward(self, input_tensor):
        # input_tensor: (B, T, C, H, W)
        b, seq_len, _, hgt, wid = input_tensor.shape
        cur_layer_input = input_tensor
        for layer_idx, cell in enumerate(self.cell_list):
            h, c = self.last_state.get(layer_idx, cell.init_hidden(b, (hgt, wid)))
            output_inner = []
            for t in range(seq_len):
                h, c = cell(cur_layer_input[:, t], (h, c))
                output_inner.append(h)
            self.last_state[layer_idx] = (h, c)  # expect: GG104
            cur_layer_input = torch.stack(output_inner, dim=1)
        return cur_layer_input


class FramePredictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.convlstm = ConvLSTM(input_dim=1, hidden_dims=[4, 4])
        self.head = nn.Conv2d(4, 1, 1)

    def forward(self, clip):
        feats = self.convlstm(clip)
        return self.head(feats[:, -1])


def main():
    torch.manual_seed(0)
    model = FramePredictor()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    video = torch.rand(2, 12, 1, 8, 8)
    for start in range(0, 9, 3):
        clip = video[:, start:start + 3]
        target = video[:, start + 3]
        loss = nn.functional.mse_loss(model(clip), target)
        opt.zero_grad()
        loss.backward()  # also: GG104
        opt.step()


if __name__ == "__main__":
    main()
