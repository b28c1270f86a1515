# corpus: correct Gatys style transfer with forward hooks (SaveFeatures) on a frozen CNN: style/content targets are captured under no_grad and detached, the hooks' stored features are refreshed every forward, the optimised image is clamped under no_grad
# source: https://github.com/fastai/fastai/pull/761
import torch
import torch.nn as nn
import torch.nn.functional as F


class SaveFeatures:
    def __init__(self, module):
        self.features = None
        self.hook = module.register_forward_hook(self.hook_fn)

    def hook_fn(self, module, inp, out):
        self.features = out

    def close(self):
        self.hook.remove()


def gram(x):
    b, c, h, w = x.shape
    f = x.view(b, c, h * w)
    return f @ f.transpose(1, 2) / (c * h * w)


class StyleTransfer:
    def __init__(self, content_img, style_img, style_weight=1e6):
        self.cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(16, 16, 3, padding=1), nn.ReLU()).eval()
        for p in self.cnn.parameters():
            p.requires_grad_(False)
        self.sfs = [SaveFeatures(self.cnn[i]) for i in (1, 3, 5)]
        self.style_weight = style_weight
        with torch.no_grad():
            self.cnn(style_img)
            self.style_targets = [gram(sf.features).detach() for sf in self.sfs]
            self.cnn(content_img)
            self.content_target = self.sfs[1].features.detach().clone()

    def losses(self, img):
        self.cnn(img)
        feats = [sf.features for sf in self.sfs]
        style = sum(F.mse_loss(gram(f), t) for f, t in zip(feats, self.style_targets))
        content = F.mse_loss(feats[1], self.content_target)
        return {"style": self.style_weight * style, "content": content}

    def run(self, init_img, steps=15, lr=0.05):
        img = init_img.clone().requires_grad_(True)
        optimizer = torch.optim.Adam([img], lr=lr)
        log = []
        for _ in range(steps):
            optimizer.zero_grad()
            parts = self.losses(img)
            total = parts["style"] + parts["content"]
            total.backward()
            optimizer.step()
            with torch.no_grad():
                img.clamp_(0, 1)
            log.append(total.item())
        for sf in self.sfs:
            sf.close()
        return img.detach(), log


def main():
    torch.manual_seed(0)
    content, style = torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16)
    st = StyleTransfer(content, style)
    out, log = st.run(content)
    print("loss first/last", round(log[0], 4), round(log[-1], 4), "range", out.min().item(), out.max().item())


if __name__ == "__main__":
    main()
