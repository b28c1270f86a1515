# corpus: Gatys neural style transfer optimizing the input image; ContentLoss keeps the content features of a CNN whose weights still require grad without detaching them, so every step of the image-optimization loop backprops into the target's graph again
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://fangdahan.medium.com/pytorch-style-transfer-tutorial-91e58d6b1055
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target  # expect: GG103

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super().__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        self.loss = F.mse_loss(gram_matrix(input), self.target)
        return input


def make_cnn():
    # stands in for vgg19(pretrained=True).features: its weights keep requires_grad=True
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
    )


def get_style_model_and_losses(cnn, style_img, content_img,
                               content_layers=("conv_3",), style_layers=("conv_1", "conv_2", "conv_3")):
    content_losses, style_losses = [], []
    model = nn.Sequential()
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = f"conv_{i}"
        elif isinstance(layer, nn.ReLU):
            name = f"relu_{i}"
            layer = nn.ReLU(inplace=False)
        else:
            name = f"pool_{i}"
        model.add_module(name, layer)
        if name in content_layers:
            target = model(content_img)
            content_loss = ContentLoss(target)
            model.add_module(f"content_loss_{i}", content_loss)
            content_losses.append(content_loss)
        if name in style_layers:
            target_feature = model(style_img)
            style_loss = StyleLoss(target_feature)
            model.add_module(f"style_loss_{i}", style_loss)
            style_losses.append(style_loss)
    return model, style_losses, content_losses


def run_style_transfer(cnn, content_img, style_img, input_img, num_steps=5,
                       style_weight=1e4, content_weight=1):
    model, style_losses, content_losses = get_style_model_and_losses(cnn, style_img, content_img)
    input_img.requires_grad_(True)
    optimizer = optim.Adam([input_img], lr=0.05)
    for step in range(num_steps):
        optimizer.zero_grad()
        model(input_img)
        style_score = sum(sl.loss for sl in style_losses)
        content_score = sum(cl.loss for cl in content_losses)
        loss = style_score * style_weight + content_score * content_weight
        loss.backward()  # also: GG103
        optimizer.step()
        with torch.no_grad():
            input_img.clamp_(0, 1)
        print(f"step {step}: style {style_score.item():.4f} content {content_score.item():.4f}")
    return input_img


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    cnn = make_cnn()
    content_img = torch.rand(1, 3, 16, 16)
    style_img = torch.rand(1, 3, 16, 16)
    input_img = content_img.clone()
    output = run_style_transfer(cnn, content_img, style_img, input_img)
