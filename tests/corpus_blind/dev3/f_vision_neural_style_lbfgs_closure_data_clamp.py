# corpus: 2017-era PyTorch neural-style tutorial: detached content/style targets, each loss module backpropagates its part of one forward with retain_graph=True inside the LBFGS closure, and the image parameter is clamped through .data before each forward
# source: https://github.com/pytorch/tutorials/issues/143
import torch
import torch.nn as nn
import torch.optim as optim


class ContentLoss(nn.Module):
    def __init__(self, target, weight):
        super().__init__()
        self.target = target.detach() * weight
        self.weight = weight
        self.criterion = nn.MSELoss()

    def forward(self, input):
        self.loss = self.criterion(input * self.weight, self.target)
        self.output = input
        return self.output

    def backward(self, retain_graph=True):
        self.loss.backward(retain_graph=retain_graph)
        return self.loss


class GramMatrix(nn.Module):
    def forward(self, input):
        a, b, c, d = input.size()
        features = input.view(a * b, c * d)
        G = torch.mm(features, features.t())
        return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target, weight):
        super().__init__()
        self.target = target.detach() * weight
        self.weight = weight
        self.gram = GramMatrix()
        self.criterion = nn.MSELoss()

    def forward(self, input):
        self.output = input.clone()
        self.G = self.gram(input) * self.weight
        self.loss = self.criterion(self.G, self.target)
        return self.output

    def backward(self, retain_graph=True):
        self.loss.backward(retain_graph=retain_graph)
        return self.loss


def get_style_model_and_losses(cnn, style_img, content_img, style_weight=1000, content_weight=1):
    content_losses, style_losses = [], []
    model, gram = nn.Sequential(), GramMatrix()
    i = 1
    for layer in list(cnn):
        if isinstance(layer, nn.Conv2d):
            name = "conv_" + str(i)
            model.add_module(name, layer)
            if name in ("conv_2",):
                content_loss = ContentLoss(model(content_img).clone(), content_weight)
                model.add_module("content_loss_" + str(i), content_loss)
                content_losses.append(content_loss)
            style_loss = StyleLoss(gram(model(style_img).clone()), style_weight)
            model.add_module("style_loss_" + str(i), style_loss)
            style_losses.append(style_loss)
            i += 1
        else:
            model.add_module(type(layer).__name__.lower() + "_" + str(i), layer)
    return model, style_losses, content_losses


def get_input_param_optimizer(input_img):
    input_param = nn.Parameter(input_img.data)
    optimizer = optim.LBFGS([input_param], max_iter=5)
    return input_param, optimizer


def run_style_transfer(cnn, content_img, style_img, input_img, num_steps=8):
    model, style_losses, content_losses = get_style_model_and_losses(cnn, style_img, content_img)
    input_param, optimizer = get_input_param_optimizer(input_img)
    run = [0]
    while run[0] <= num_steps:
        def closure():
            # correct the values of updated input image
            input_param.data.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_param)
            style_score = 0
            content_score = 0
            for sl in style_losses:
                style_score += sl.backward()
            for cl in content_losses:
                content_score += cl.backward()
            run[0] += 1
            return style_score + content_score
        optimizer.step(closure)
    input_param.data.clamp_(0, 1)
    return input_param.data


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
    content_img, style_img = torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16)
    output = run_style_transfer(cnn, content_img, style_img, content_img.clone())
    print(output.shape, float(output.min()), float(output.max()))
