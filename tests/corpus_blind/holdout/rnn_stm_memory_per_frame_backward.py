# corpus: space-time memory video segmentation memorizes frame 0 once, then calls backward per frame while every frame reads that memory
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/seoungwugoh/STM/issues/14
import torch
import torch.nn as nn
import torch.nn.functional as F


class KeyValue(nn.Module):
    def __init__(self, cin, keydim, valdim):
        super().__init__()
        self.key = nn.Conv2d(cin, keydim, 3, padding=1)
        self.value = nn.Conv2d(cin, valdim, 3, padding=1)

    def forward(self, x):
        return self.key(x), self.value(x)


class STM(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc_m = nn.Conv2d(4, 8, 3, padding=1)   # frame (3) + mask (1)
        self.enc_q = nn.Conv2d(3, 8, 3, padding=1)
        self.kv_m = KeyValue(8, 4, 8)
        self.kv_q = KeyValue(8, 4, 8)
        self.decoder = nn.Conv2d(16, 2, 3, padding=1)

    def memorize(self, frame, mask):
        feat = F.relu(self.enc_m(torch.cat([frame, mask], dim=1)))
        k, v = self.kv_m(feat)
        return k.unsqueeze(2), v.unsqueeze(2)    # (B, C, T=1, H, W)

    def segment(self, frame, keys, values):
        feat = F.relu(self.enc_q(frame))
        qk, qv = self.kv_q(feat)
        b, c, t, h, w = keys.shape
        mk = keys.reshape(b, c, t * h * w)
        p = torch.softmax(torch.einsum("bcm,bcn->bmn", mk, qk.flatten(2)) / c ** 0.5, dim=1)
        read = torch.einsum("bcm,bmn->bcn", values.reshape(b, values.size(1), -1), p)
        return self.decoder(torch.cat([read.view(b, -1, h, w), qv], dim=1))


def train_one_object(model, optimizer, frames, masks):
    keys, values = model.memorize(frames[:, 0], masks[:, 0])  # expect: GG103, GG101
    losses = []
    for t in range(1, frames.size(1)):
        logit = model.segment(frames[:, t], keys, values)
        loss = F.cross_entropy(logit, masks[:, t, 0].long())
        optimizer.zero_grad()
        loss.backward()  # also: GG103, GG101
        optimizer.step()
        losses.append(loss.item())
        prob = torch.softmax(logit, dim=1)[:, 1:2]
        new_k, new_v = model.memorize(frames[:, t], prob)
        keys = torch.cat([keys, new_k], dim=2)
        values = torch.cat([values, new_v], dim=2)
    return losses


def main():
    torch.manual_seed(0)
    model = STM()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-5)
    frames = torch.rand(1, 3, 3, 8, 8)
    masks = (torch.rand(1, 3, 1, 8, 8) > 0.5).float()
    print(train_one_object(model, optimizer, frames, masks))


if __name__ == "__main__":
    main()
