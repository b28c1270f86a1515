# corpus: Gatys neural style transfer with transparent ContentLoss/StyleLoss modules inserted after conv layers (PyTorch tutorial / CMU 16-726 proj4 shape): the content target is detached but StyleLoss stores gram_matrix(target_feature) with its graph through the (unfrozen) feature network, so the second closure evaluation of the optimizer backpropagates into the style target's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://andrew.cmu.edu/course/16-726/projects/ttabor/proj4
import torch
import torch.nn as nn
import torch.nn.functional as F


def gram_matrix(x):
    a, b, c, d = x.size()
    features = x.view(a * b, c * d)
    return torch.mm(features, features.t()).div(a * b * c * d)


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target.detach()

    def forward(self, x):
        self.loss = F.mse_loss(x, self.target)
        return x


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super().__init__()
        self.target = gram_matrix(target_feature)  # expect: GG103

    def forward(self, x):
        self.loss = F.mse_loss(gram_matrix(x), self.target)
        return x


def make_feature_net():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())


def get_style_model_and_losses(cnn, style_img, content_img,
                               content_layers=("conv_4",), style_layers=("conv_1", "conv_2", "conv_3", "conv_4")):
    content_losses, style_losses = [], []
    model = nn.Sequential()
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = f"conv_{i}"
        elif isinstance(layer, nn.ReLU):
            name, layer = f"relu_{i}", nn.ReLU(inplace=False)
        else:
            name = f"pool_{i}"
        model.add_module(name, layer)
        if name in content_layers:
            content_loss = ContentLoss(model(content_img))
            model.add_module(f"content_loss_{i}", content_loss)
            content_losses.append(content_loss)
        if name in style_layers:
            style_loss = StyleLoss(model(style_img))
            model.add_module(f"style_loss_{i}", style_loss)
            style_losses.append(style_loss)
    return model, style_losses, content_losses


def run_style_transfer(cnn, content_img, style_img, input_img, num_steps=3, style_weight=1e5, content_weight=1):
    model, style_losses, content_losses = get_style_model_and_losses(cnn, style_img, content_img)
    input_img.requires_grad_(True)
    optimizer = torch.optim.LBFGS([input_img], max_iter=4)
    run = [0]
    while run[0] <= num_steps:
        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = style_weight * sum(sl.loss for sl in style_losses)
            content_score = content_weight * sum(cl.loss for cl in content_losses)
            loss = style_score + content_score
            loss.backward()  # also: GG103
            run[0] += 1
            print(f"run {run[0]}: style {style_score.item():.4f} content {content_score.item():.4f}")
            return loss
        optimizer.step(closure)
    with torch.no_grad():
        input_img.clamp_(0, 1)
    return input_img


def main():
    torch.manual_seed(0)
    cnn = make_feature_net().eval()
    content_img, style_img = torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16)
    output = run_style_transfer(cnn, content_img, style_img, content_img.clone())
    print("output range", output.min().item(), output.max().item())


if __name__ == "__main__":
    main()
