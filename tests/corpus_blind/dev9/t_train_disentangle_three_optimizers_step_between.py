# corpus: content/style disentangling classifier with three losses and three optimizers; each loss is backpropagated with retain_graph and its optimizer steps immediately, so later backwards run through weights already updated in place
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: http://124.223.164.10/2022/07/15/Pytorch%20Loss
import torch
import torch.nn as nn
import torch.nn.functional as F


class DisentangleNet(nn.Module):
    def __init__(self, in_dim=16, hid=24, n_content=5, n_style=3):
        super().__init__()
        self.content_block1 = nn.Sequential(nn.Linear(in_dim, hid), nn.ReLU(), nn.Linear(hid, hid), nn.ReLU())
        self.content_block2 = nn.Sequential(nn.Linear(hid, hid), nn.ReLU())
        self.style_block2 = nn.Sequential(nn.Linear(hid, hid), nn.ReLU())
        self.cls_content = nn.Linear(hid, n_content)
        self.cls_style = nn.Linear(hid, n_style)

    def forward(self, x):
        f1 = self.content_block1(x)
        return {
            "content_logits": self.cls_content(self.content_block2(f1)),
            "style_logits": self.cls_style(self.style_block2(f1)),
            "adv_style_logits": self.cls_style(f1),
        }


def build_optimizers(net, lr=1e-2):
    content = list(net.content_block1.parameters()) + list(net.content_block2.parameters()) + list(net.cls_content.parameters())
    style = list(net.style_block2.parameters()) + list(net.cls_style.parameters())
    adv = list(net.content_block1.parameters())
    return {name: torch.optim.SGD(ps, lr=lr) for name, ps in [("content", content), ("style", style), ("adv", adv)]}


def compute_losses(out, y_content, y_style):
    uniform = torch.full_like(out["adv_style_logits"], 1.0 / out["adv_style_logits"].shape[1])
    return {
        "loss_cls_content": F.cross_entropy(out["content_logits"], y_content),
        "loss_cls_style": F.cross_entropy(out["style_logits"], y_style),
        "loss_adv": F.kl_div(out["adv_style_logits"].log_softmax(1), uniform, reduction="batchmean"),
    }


def train_step(net, optims, x, y_content, y_style):
    losses = compute_losses(net(x), y_content, y_style)
    optims["style"].zero_grad()
    losses["loss_cls_style"].backward(retain_graph=True)
    optims["style"].step()  # expect: GG111
    optims["adv"].zero_grad()
    losses["loss_adv"].backward(retain_graph=True)  # also: GG111
    optims["adv"].step()  # expect: GG111
    optims["content"].zero_grad()
    losses["loss_cls_content"].backward()  # also: GG111
    optims["content"].step()
    return {k: v.item() for k, v in losses.items()}


def main():
    torch.manual_seed(0)
    net = DisentangleNet()
    optims = build_optimizers(net)
    for step in range(3):
        x = torch.randn(8, 16)
        print(step, train_step(net, optims, x, torch.randint(0, 5, (8,)), torch.randint(0, 3, (8,))))


if __name__ == "__main__":
    main()
