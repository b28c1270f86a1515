# corpus: photorealistic style transfer (hrnet.py style net, utils.py VGG features/gram helpers): the content/style targets are computed once before the loop through a VGG whose parameters still require grad, so every iteration's loss hangs off that pre-loop graph and the second backward finds it freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/limingcv/Photorealistic-Style-Transfer/issues/7
import torch
import torch.optim as optim

import utils
from hrnet import HRNet


def main():
    torch.manual_seed(0)
    VGG = utils.build_vgg()
    style_net = HRNet()

    content_image = torch.rand(1, 3, 16, 16)
    style_image = torch.rand(1, 3, 16, 16)

    targets = utils.compute_targets(VGG, content_image, style_image)  # expect: GG103

    style_weights = {"conv1_1": 0.1, "conv2_1": 0.2, "conv3_1": 0.4}
    content_weight = 150
    style_weight = 1

    optimizer = optim.Adam(style_net.parameters(), lr=5e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=200, gamma=0.9)
    steps = 4
    total_loss_epoch = []

    for epoch in range(steps):
        target = style_net(content_image)
        target.requires_grad_(True)

        target_features = utils.get_features(target, VGG)
        content_loss = torch.mean((target_features[utils.CONTENT_LAYER] - targets["content"][utils.CONTENT_LAYER]) ** 2)  # also: GG103

        style_loss = 0
        for layer in style_weights:
            target_feature = target_features[layer]
            target_gram_matrix = utils.get_grim_matrix(target_feature)
            style_gram_matrix = targets["style_grams"][layer]  # also: GG103
            layer_style_loss = style_weights[layer] * torch.mean((target_gram_matrix - style_gram_matrix) ** 2)
            b, c, h, w = target_feature.shape
            style_loss += layer_style_loss / (c * h * w)

        total_loss = content_weight * content_loss + style_weight * style_loss
        total_loss_epoch.append(total_loss.item())

        optimizer.zero_grad()
        total_loss.backward()  # also: GG103
        optimizer.step()
        scheduler.step()
        print(f"step {epoch}: total loss {total_loss_epoch[-1]:.4f}")


if __name__ == "__main__":
    main()
