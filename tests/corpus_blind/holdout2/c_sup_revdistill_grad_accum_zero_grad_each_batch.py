# corpus: reverse-distillation trainer with two optimizers and accumulation_steps, but both zero_grad() calls run before every backward, so only the last micro-batch is ever stepped
# source: https://github.com/tientrandinh/Revisiting-Reverse-Distillation/issues/12
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    """Frozen teacher: returns a list of multi-scale features."""

    def __init__(self):
        super().__init__()
        self.l1 = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU())
        self.l2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())

    def forward(self, x):
        f1 = self.l1(x)
        return [f1, self.l2(f1)]


class MultiProjectionLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.ModuleList([nn.Conv2d(8, 8, 1), nn.Conv2d(16, 16, 1)])

    def forward(self, feats, feats_pos=None):
        out = [p(f) for p, f in zip(self.proj, feats)]
        if feats_pos is None:
            return out
        out_pos = [p(f) for p, f in zip(self.proj, feats_pos)]
        return out, out_pos


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.Conv2d(16, 16, 3, padding=1)
        self.up = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)

    def forward(self, feats):
        b = F.relu(self.bn(feats[-1]))
        return [F.relu(self.up(b)), b]


def loss_fucntion(a, b):
    loss = 0
    for item in range(len(a)):
        loss += torch.mean(1 - F.cosine_similarity(a[item].flatten(1), b[item].flatten(1)))
    return loss


def train(encoder, proj_layer, decoder, dataloader, epochs=2, accumulation_steps=2, proj_lamda=0.1):
    optimizer_proj = torch.optim.Adam(proj_layer.parameters(), lr=1e-3, betas=(0.5, 0.999))
    optimizer_distill = torch.optim.Adam(decoder.parameters(), lr=5e-3, betas=(0.5, 0.999))
    encoder.eval()
    for epoch in range(epochs):
        proj_layer.train()
        decoder.train()
        loss_list = []
        for i, (img, img_noise) in enumerate(dataloader):
            with torch.no_grad():
                inputs = encoder(img)
                inputs_noise = encoder(img_noise)
            feature_space_noise, feature_space = proj_layer(inputs_noise, feats_pos=inputs)
            L_proj = loss_fucntion(feature_space_noise, feature_space)
            outputs = decoder(feature_space)
            L_distill = loss_fucntion(inputs, outputs)
            loss = L_distill + proj_lamda * L_proj
            optimizer_proj.zero_grad()  # expect: GG201
            optimizer_distill.zero_grad()  # also: GG201
            loss.backward()
            if (i + 1) % accumulation_steps == 0:
                optimizer_proj.step()
                optimizer_distill.step()
            loss_list.append(loss.item())
        print("epoch [{}/{}], loss:{:.4f}".format(epoch + 1, epochs, sum(loss_list) / len(loss_list)))


def main():
    torch.manual_seed(0)
    encoder, proj_layer, decoder = Encoder(), MultiProjectionLayer(), Decoder()
    for p in encoder.parameters():
        p.requires_grad = False
    dataloader = []
    for _ in range(4):
        img = torch.rand(2, 3, 16, 16)
        dataloader.append((img, img + 0.05 * torch.randn_like(img)))
    train(encoder, proj_layer, decoder, dataloader)


if __name__ == "__main__":
    main()
