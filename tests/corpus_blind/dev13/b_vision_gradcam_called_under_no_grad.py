# corpus: Grad-CAM over a folder of images (pytorch-grad-cam BaseCAM/ActivationsAndGradients shape): the user wraps the whole inference loop in torch.no_grad(), so the target score built inside cam(...) has no graph and BaseCAM's loss.backward(retain_graph=True) fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/jacobgil/pytorch-grad-cam/issues/187
import numpy as np
import torch
import torch.nn as nn


class ActivationsAndGradients:
    """Class for extracting activations and registering gradients from targetted intermediate layers."""

    def __init__(self, model, target_layers):
        self.model = model
        self.gradients, self.activations, self.handles = [], [], []
        for target_layer in target_layers:
            self.handles.append(target_layer.register_forward_hook(self.save_activation))
            self.handles.append(target_layer.register_forward_hook(self.save_gradient))

    def save_activation(self, module, input, output):
        self.activations.append(output.cpu().detach())

    def save_gradient(self, module, input, output):
        if not hasattr(output, "requires_grad") or not output.requires_grad:
            # You can only register hooks on tensor requires grad.
            return

        def _store_grad(grad):
            self.gradients = [grad.cpu().detach()] + self.gradients
        output.register_hook(_store_grad)

    def __call__(self, x):
        self.gradients, self.activations = [], []
        return self.model(x)


class ClassifierOutputTarget:
    def __init__(self, category):
        self.category = category

    def __call__(self, model_output):
        return model_output[self.category]


class GradCAM:
    def __init__(self, model, target_layers):
        self.model = model.eval()
        self.activations_and_grads = ActivationsAndGradients(self.model, target_layers)

    def get_cam_weights(self, grads):
        return np.mean(grads, axis=(2, 3))

    def forward(self, input_tensor, targets=None):
        outputs = self.activations_and_grads(input_tensor)
        if targets is None:
            target_categories = np.argmax(outputs.cpu().data.numpy(), axis=-1)
            targets = [ClassifierOutputTarget(category) for category in target_categories]
        self.model.zero_grad()
        loss = sum([target(output) for target, output in zip(targets, outputs)])
        loss.backward(retain_graph=True)  # expect: GG106
        activations = self.activations_and_grads.activations[-1].numpy()
        grads = self.activations_and_grads.gradients[-1].numpy()
        weights = self.get_cam_weights(grads)
        cam = np.maximum((weights[:, :, None, None] * activations).sum(axis=1), 0)
        return cam / (cam.max() + 1e-7)

    def __call__(self, input_tensor, targets=None):
        return self.forward(input_tensor, targets)


class ResNetLike(nn.Module):
    def __init__(self, num_classes=23):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.layer4 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.fc(self.pool(self.layer4(self.stem(x))).flatten(1))


def preprocess_image(img, mean, std):
    img = (img - np.array(mean, dtype=np.float32)) / np.array(std, dtype=np.float32)
    return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).unsqueeze(0)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    model = ResNetLike()
    model.eval()
    cam = GradCAM(model=model, target_layers=[model.layer4[-1]])
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    imgs = [np.random.rand(16, 16, 3).astype(np.float32) for _ in range(3)]
    with torch.no_grad():  # also: GG106
        for i, img_ori in enumerate(imgs):
            input_tensor = preprocess_image(img_ori, mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
            grayscale_cam = cam(input_tensor=input_tensor, targets=None)  # also: GG106
            print(i, grayscale_cam.shape, float(grayscale_cam.mean()))
    print(type(criterion).__name__, type(optimizer).__name__)


if __name__ == "__main__":
    main()
