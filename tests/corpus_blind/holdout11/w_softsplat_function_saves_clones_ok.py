# corpus: custom autograd.Function for soft forward splatting saves clones of its inputs, so the later in-place residual update of the feature map cannot corrupt its backward: correct
# source: https://github.com/sniklaus/softmax-splatting/issues/50
import torch
import torch.nn as nn
import torch.nn.functional as F


class SoftSplat(torch.autograd.Function):
    """Splat each column one step to the right, weighted by sigmoid(metric)."""

    @staticmethod
    def forward(ctx, tenIn, tenMetric):
        weight = torch.sigmoid(tenMetric)
        tenOut = torch.zeros_like(tenIn)
        tenOut[..., 1:] = tenIn[..., :-1] * weight[..., :-1]
        ctx.save_for_backward(tenIn.clone(), tenMetric.clone())
        return tenOut

    @staticmethod
    def backward(ctx, tenOutgrad):
        tenIn, tenMetric = ctx.saved_tensors
        weight = torch.sigmoid(tenMetric)
        tenIngrad = torch.zeros_like(tenIn)
        tenMetricgrad = torch.zeros_like(tenMetric)
        tenIngrad[..., :-1] = tenOutgrad[..., 1:] * weight[..., :-1]
        tenMetricgrad[..., :-1] = (tenOutgrad[..., 1:] * tenIn[..., :-1] * weight[..., :-1]
                                   * (1 - weight[..., :-1])).sum(dim=1, keepdim=True)
        return tenIngrad, tenMetricgrad


softsplat = SoftSplat.apply


class FrameSynthesis(nn.Module):
    def __init__(self, channels=3, width=6):
        super().__init__()
        self.channels, self.width = channels, width
        self.encoder = nn.Linear(width, channels * width)
        self.metric = nn.Linear(width, width)
        self.refine = nn.Linear(channels * width, channels * width)
        self.decoder = nn.Linear(channels * width, width)

    def forward(self, frame):
        b = frame.size(0)
        feat = self.encoder(frame).view(b, self.channels, self.width)
        metric = self.metric(frame).view(b, 1, self.width)
        warped = softsplat(feat, metric)
        feat += self.refine(warped.flatten(1)).view_as(feat)
        return self.decoder(F.relu(feat).flatten(1))


def train(model, steps=4):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    history = []
    for step in range(steps):
        frame = torch.randn(4, 6)
        target = torch.roll(frame, shifts=1, dims=1)
        loss = F.mse_loss(model(frame), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    return history


if __name__ == "__main__":
    torch.manual_seed(0)
    model = FrameSynthesis()
    before = model.metric.weight.detach().clone()
    print("loss", train(model))
    print("metric head moved", (model.metric.weight - before).abs().max().item())
