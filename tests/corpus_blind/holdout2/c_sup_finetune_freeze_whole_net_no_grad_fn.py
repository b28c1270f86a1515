# corpus: lane-detection finetune branch meant to freeze only the backbone but loops over every parameter of the net, so the summed loss dict has no grad_fn
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/cfzd/Ultra-Fast-Lane-Detection/issues/282
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"griding_num": 10, "cls_num_per_lane": 4, "num_lanes": 2, "finetune": True, "epoch": 2, "lr": 0.05}


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU())

    def forward(self, x):
        return self.conv(x)


class ParsingNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cls_dim = (cfg["griding_num"] + 1, cfg["cls_num_per_lane"], cfg["num_lanes"])
        total = self.cls_dim[0] * self.cls_dim[1] * self.cls_dim[2]
        self.model = Backbone()
        self.pool = nn.Conv2d(8, 4, 1)
        self.cls = nn.Sequential(nn.Linear(4 * 4 * 4, 32), nn.ReLU(), nn.Linear(32, total))

    def forward(self, x):
        fea = self.pool(self.model(x)).flatten(1)
        return self.cls(fea).view(-1, *self.cls_dim)


class ParsingRelationLoss(nn.Module):
    def forward(self, logits):
        _, _, h, _ = logits.shape
        diffs = [logits[:, :, i, :] - logits[:, :, i + 1, :] for i in range(h - 1)]
        return F.smooth_l1_loss(torch.cat(diffs), torch.zeros_like(torch.cat(diffs)))


def get_loss_dict():
    return {
        "name": ["cls_loss", "relation_loss"],
        "op": [nn.CrossEntropyLoss(), ParsingRelationLoss()],
        "weight": [1.0, 0.1],
        "data_src": [("cls_out", "cls_label"), ("cls_out",)],
    }


def calc_loss(loss_dict, results):
    loss = 0
    for i in range(len(loss_dict["name"])):
        datas = [results[src] for src in loss_dict["data_src"][i]]
        cur_loss = loss_dict["op"][i](*datas)
        loss += cur_loss * loss_dict["weight"][i]
    return loss


def train(net, data_loader, loss_dict, optimizer, epoch):
    net.train()
    for b_idx, (imgs, cls_label) in enumerate(data_loader):
        results = {"cls_out": net(imgs), "cls_label": cls_label}
        loss = calc_loss(loss_dict, results)
        optimizer.zero_grad()
        loss.backward()  # also: GG106
        optimizer.step()
        print(f"epoch {epoch} iter {b_idx} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    cfg = CFG
    net = ParsingNet(cfg)
    if cfg["finetune"]:
        pretrained = ParsingNet(cfg).state_dict()
        state_clip = {k: v for k, v in pretrained.items() if "model" in k}  # only use backbone parameters
        net.load_state_dict(state_clip, strict=False)
        for param in net.parameters():
            param.requires_grad = False  # expect: GG106
    optimizer = torch.optim.SGD(net.parameters(), lr=cfg["lr"], momentum=0.9)
    loss_dict = get_loss_dict()
    data_loader = [(torch.randn(2, 3, 16, 16), torch.randint(0, cfg["griding_num"] + 1, (2, cfg["cls_num_per_lane"], cfg["num_lanes"])))
                   for _ in range(3)]
    for epoch in range(cfg["epoch"]):
        train(net, data_loader, loss_dict, optimizer, epoch)


if __name__ == "__main__":
    main()
