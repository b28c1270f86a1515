# corpus: MPRNet-style multi-stage deblurring training sums the per-stage Charbonnier and edge losses with np.sum, which converts each graph-carrying loss tensor to numpy
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/swz30/MPRNet/issues/112
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class CharbonnierLoss(nn.Module):
    def __init__(self, eps=1e-3):
        super().__init__()
        self.eps = eps

    def forward(self, x, y):
        diff = x - y
        return torch.mean(torch.sqrt((diff * diff) + (self.eps * self.eps)))


class EdgeLoss(nn.Module):
    def __init__(self):
        super().__init__()
        k = torch.Tensor([[.05, .25, .4, .25, .05]])
        self.kernel = torch.matmul(k.t(), k).unsqueeze(0).repeat(3, 1, 1, 1)
        self.loss = CharbonnierLoss()

    def conv_gauss(self, img):
        n_channels, _, kw, kh = self.kernel.shape
        img = F.pad(img, (kw // 2, kh // 2, kw // 2, kh // 2), mode="replicate")
        return F.conv2d(img, self.kernel, groups=n_channels)

    def laplacian_kernel(self, current):
        filtered = self.conv_gauss(current)
        down = filtered[:, :, ::2, ::2]
        new_filter = torch.zeros_like(filtered)
        new_filter[:, :, ::2, ::2] = down * 4
        filtered = self.conv_gauss(new_filter)
        return current - filtered

    def forward(self, x, y):
        return self.loss(self.laplacian_kernel(x), self.laplacian_kernel(y))


class Stage(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.PReLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


class MPRNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1, self.stage2, self.stage3 = Stage(), Stage(), Stage()

    def forward(self, x3_img):
        stage1_img = self.stage1(x3_img)
        stage2_img = self.stage2(stage1_img)
        stage3_img = self.stage3(stage2_img)
        return [stage3_img, stage2_img, stage1_img]


def train(num_epochs=2):
    model_restoration = MPRNet()
    optimizer = torch.optim.Adam(model_restoration.parameters(), lr=2e-4, betas=(0.9, 0.999), eps=1e-8)
    criterion_char = CharbonnierLoss()
    criterion_edge = EdgeLoss()
    train_loader = [(torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 16)) for _ in range(3)]
    for epoch in range(1, num_epochs + 1):
        epoch_loss = 0
        model_restoration.train()
        for i, data in enumerate(train_loader, 0):
            for param in model_restoration.parameters():
                param.grad = None
            target = data[0]
            input_ = data[1]
            restored = model_restoration(input_)
            # Compute loss at each stage
            loss_char = np.sum([criterion_char(restored[j], target) for j in range(len(restored))])  # expect: GG110
            loss_edge = np.sum([criterion_edge(restored[j], target) for j in range(len(restored))])  # also: GG110
            loss = (loss_char) + (0.05 * loss_edge)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        print(f"Epoch: {epoch}\tLoss: {epoch_loss:.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    train()
