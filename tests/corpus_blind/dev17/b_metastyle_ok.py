# corpus: MetaStyle meta-training of a style-transfer net: frozen-VGG content/style features computed once before the inner loop, inner updates of the instance-norm fast weights through autograd.grad(create_graph=True), per-style meta gradients collected with autograd.grad, then one hooked dummy-loss backward and step per iteration; correct as written.
# source: https://github.com/WellyZhang/MetaStyle/issues/4
import re
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class TransformerNet(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, ch, 3, padding=1)
        self.in1 = nn.InstanceNorm2d(ch, affine=True)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)
        self.in2 = nn.InstanceNorm2d(ch, affine=True)
        self.deconv = nn.Conv2d(ch, 3, 3, padding=1)

    def _in(self, name, x, params):
        if params is not None and f"{name}.weight" in params:
            return F.instance_norm(x, weight=params[f"{name}.weight"], bias=params[f"{name}.bias"])
        mod = getattr(self, name)
        return F.instance_norm(x, weight=mod.weight, bias=mod.bias)

    def forward(self, x, params=None):
        y = F.relu(self._in("in1", self.conv1(x), params))
        y = F.relu(self._in("in2", self.conv2(y), params))
        return self.deconv(y)


class Vgg16(nn.Module):
    def __init__(self, requires_grad=False):
        super().__init__()
        self.slice1 = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
        self.slice2 = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, x):
        h1 = self.slice1(x)
        h2 = self.slice2(h1)
        return [h1, h2]


def gram_matrix(y):
    b, ch, h, w = y.size()
    features = y.view(b, ch, w * h)
    return features.bmm(features.transpose(1, 2)) / (ch * h * w)


def normalize_batch(batch):
    return (batch / 255.0 - 0.45) / 0.225


def loss_fn(features_transformed, features_contents, gram_style, content_weight, style_weight):
    c_loss = content_weight * mse_loss(features_transformed[1], features_contents[1])
    s_loss = 0.0
    for ft_y, gm_s in zip(features_transformed, gram_style):
        s_loss = s_loss + mse_loss(gram_matrix(ft_y), gm_s[:ft_y.size(0), :, :])
    s_loss = style_weight * s_loss
    return c_loss + s_loss, c_loss, s_loss


def meta_updates(model, dummy_loss, all_meta_grads):
    true_grads = {k: sum(d[k] for d in all_meta_grads) for k in all_meta_grads[0].keys()}
    hooks = []
    for (k, v) in model.named_parameters():
        def get_closure():
            key = k

            def replace_grad(grad):
                return true_grads[key]
            return replace_grad
        hooks.append(v.register_hook(get_closure()))
    optimizer.zero_grad()
    dummy_loss.backward()
    optimizer.step()
    for h in hooks:
        h.remove()


def train(args):
    torch.manual_seed(args["seed"])
    transformer = TransformerNet()
    vgg = Vgg16(requires_grad=False)
    global optimizer, mse_loss
    optimizer = torch.optim.Adam(transformer.parameters(), args["meta_lr"])
    mse_loss = torch.nn.MSELoss()
    content_weight, style_weight = args["content_weight"], args["style_weight"]

    for iteration in range(args["max_iter"]):
        transformer.train()
        all_meta_grads = []
        contents = torch.rand(args["iter_batch_size"], 3, 8, 8) * 255
        features_contents = vgg(normalize_batch(contents))
        querys = torch.rand(args["iter_batch_size"], 3, 8, 8) * 255
        features_querys = vgg(normalize_batch(querys))
        lr = args["lr"] / (1.0 + iteration * 2.5e-5)

        for i in range(args["meta_batch_size"]):
            style = (torch.rand(1, 3, 8, 8) * 255).repeat(args["iter_batch_size"], 1, 1, 1)
            features_style = vgg(normalize_batch(style))
            gram_style = [gram_matrix(y) for y in features_style]

            fast_weights = OrderedDict((name, param) for (name, param) in transformer.named_parameters() if re.search(r"in\d+\.", name))
            for j in range(args["meta_step"]):
                transformed = transformer(contents, fast_weights)
                features_transformed = vgg(normalize_batch(transformed))
                loss, c_loss, s_loss = loss_fn(features_transformed, features_contents, gram_style, content_weight, style_weight)
                grads = torch.autograd.grad(loss, fast_weights.values(), create_graph=True)
                fast_weights = OrderedDict((name, param - lr * grad) for ((name, param), grad) in zip(fast_weights.items(), grads))

            transformed = transformer(querys, fast_weights)
            features_transformed = vgg(normalize_batch(transformed))
            loss, c_loss, s_loss = loss_fn(features_transformed, features_querys, gram_style, content_weight, style_weight)
            grads = torch.autograd.grad(loss / args["meta_batch_size"], transformer.parameters())
            all_meta_grads.append({name: g for ((name, _), g) in zip(transformer.named_parameters(), grads)})

        transformed = transformer(querys)
        features_transformed = vgg(normalize_batch(transformed))
        dummy_loss, _, _ = loss_fn(features_transformed, features_querys, gram_style, content_weight, style_weight)
        meta_updates(transformer, dummy_loss, all_meta_grads)
        print(f"iter {iteration}: eval loss {loss.item():.4f}")
    return transformer


def main():
    args = {"seed": 0, "meta_lr": 1e-3, "lr": 1e-3, "content_weight": 1.0, "style_weight": 10.0,
            "max_iter": 2, "iter_batch_size": 2, "meta_batch_size": 2, "meta_step": 2}
    train(args)


if __name__ == "__main__":
    main()
