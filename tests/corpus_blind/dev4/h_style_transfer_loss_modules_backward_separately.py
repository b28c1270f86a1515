# corpus: neural style transfer in the old tutorial layout: ContentLoss/StyleLoss modules inserted into the CNN each call their own self.loss.backward() from the LBFGS closure; with retain_graph dropped, the second style loss backward runs through conv layers shared with the first one, whose saved tensors are already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/pytorch/tutorials/issues/123
import copy

import torch
import torch.nn as nn
import torch.optim as optim


class ContentLoss(nn.Module):
    def __init__(self, target, weight):
        super().__init__()
        # we 'detach' the target content from the tree used
        self.target = target.detach() * weight
        self.weight = weight
        self.criterion = nn.MSELoss()

    def forward(self, input):
        self.loss = self.criterion(input * self.weight, self.target)
        self.output = input
        return self.output

    def backward(self):
        self.loss.backward()
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
        self.G = self.gram(input)
        self.G.mul_(self.weight)
        self.loss = self.criterion(self.G, self.target)
        return self.output

    def backward(self):
        self.loss.backward()  # expect: GG102
        return self.loss


content_layers_default = ["conv_3"]
style_layers_default = ["conv_1", "conv_2", "conv_3"]


def build_cnn():
    return nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(),
        nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(),
        nn.Conv2d(4, 4, 3, padding=1),
    )


def get_style_model_and_losses(cnn, style_img, content_img, style_weight=1000, content_weight=1,
                               content_layers=content_layers_default, style_layers=style_layers_default):
    cnn = copy.deepcopy(cnn)
    content_losses = []
    style_losses = []
    model = nn.Sequential()
    gram = GramMatrix()

    i = 1
    for layer in list(cnn):
        if isinstance(layer, nn.Conv2d):
            name = "conv_" + str(i)
            model.add_module(name, layer)
            if name in content_layers:
                target = model(content_img).clone()
                content_loss = ContentLoss(target, content_weight)
                model.add_module("content_loss_" + str(i), content_loss)
                content_losses.append(content_loss)
            if name in style_layers:
                target_feature = model(style_img).clone()
                target_feature_gram = gram(target_feature)
                style_loss = StyleLoss(target_feature_gram, style_weight)
                model.add_module("style_loss_" + str(i), style_loss)
                style_losses.append(style_loss)
        if isinstance(layer, nn.ReLU):
            name = "relu_" + str(i)
            model.add_module(name, layer)
            i += 1
    return model, style_losses, content_losses


def get_input_param_optimizer(input_img):
    input_param = nn.Parameter(input_img.data)
    optimizer = optim.LBFGS([input_param], max_iter=2)
    return input_param, optimizer


def run_style_transfer(cnn, content_img, style_img, input_img, num_steps=3, style_weight=1000, content_weight=1):
    model, style_losses, content_losses = get_style_model_and_losses(cnn, style_img, content_img, style_weight, content_weight)
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
                style_score += sl.backward()  # also: GG102
            for cl in content_losses:
                content_score += cl.backward()

            run[0] += 1
            if run[0] % 2 == 0:
                print("run {}: style {:4f} content {:4f}".format(run, style_score.item(), content_score.item()))
            return style_score + content_score

        optimizer.step(closure)

    input_param.data.clamp_(0, 1)
    return input_param.data


def main():
    torch.manual_seed(0)
    cnn = build_cnn()
    content_img = torch.rand(1, 3, 8, 8)
    style_img = torch.rand(1, 3, 8, 8)
    input_img = content_img.clone()
    output = run_style_transfer(cnn, content_img, style_img, input_img)
    print(output.shape)


if __name__ == "__main__":
    main()
