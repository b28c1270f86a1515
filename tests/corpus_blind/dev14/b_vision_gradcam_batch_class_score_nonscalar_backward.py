# corpus: GradCAM / GradCAM++ wrapper (gradcam_plus_plus-pytorch shape) with forward/backward hooks on the target layer, called on a batch of images: the class score gathered per image is a vector, and score.backward() without a gradient argument fails
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/1Konny/gradcam_plus_plus-pytorch/issues/7
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallResNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class GradCAM:
    def __init__(self, model_dict, verbose=False):
        self.model_arch = model_dict["arch"]
        self.gradients, self.activations = {}, {}
        target_layer = getattr(self.model_arch, model_dict["layer_name"])

        def backward_hook(module, grad_input, grad_output):
            self.gradients["value"] = grad_output[0]

        def forward_hook(module, input, output):
            self.activations["value"] = output

        target_layer.register_forward_hook(forward_hook)
        target_layer.register_full_backward_hook(backward_hook)
        if verbose:
            print("saliency_map size :", model_dict["input_size"])

    def forward(self, input, class_idx=None, retain_graph=False):
        b, c, h, w = input.size()
        logit = self.model_arch(input)
        if class_idx is None:
            score = logit.gather(1, logit.max(1)[-1].unsqueeze(1)).squeeze(1)
        else:
            score = logit[:, class_idx]
        self.model_arch.zero_grad()
        score.backward(retain_graph=retain_graph)  # expect: GG109
        gradients = self.gradients["value"]
        activations = self.activations["value"]
        weights = gradients.mean(dim=(2, 3), keepdim=True)
        saliency_map = F.relu((weights * activations).sum(1, keepdim=True))
        saliency_map = F.interpolate(saliency_map, size=(h, w), mode="bilinear", align_corners=False)
        s_min = saliency_map.amin(dim=(2, 3), keepdim=True)
        s_max = saliency_map.amax(dim=(2, 3), keepdim=True)
        saliency_map = (saliency_map - s_min) / (s_max - s_min + 1e-8)
        return saliency_map.detach(), logit.detach()

    def __call__(self, input, class_idx=None, retain_graph=False):
        return self.forward(input, class_idx, retain_graph)


def visualize_cam(mask, img):
    heatmap = mask.repeat(1, 3, 1, 1)
    result = 0.5 * heatmap + 0.5 * img
    return heatmap, result / result.amax()


def main():
    torch.manual_seed(0)
    model = SmallResNet().eval()
    gradcam = GradCAM({"arch": model, "layer_name": "layer2", "input_size": (16, 16)}, verbose=True)
    inputs = torch.rand(4, 3, 16, 16)
    mask, logits = gradcam(inputs)
    heatmap, result = visualize_cam(mask, inputs)
    print("mask", tuple(mask.shape), "pred", logits.argmax(1).tolist(), "result max", result.max().item())


if __name__ == "__main__":
    main()
