# corpus: PAIR-saliency style GradientSaliency.GetMask driven from PyTorch; the input image is made requires_grad and then turned into the numpy x_value the library expects
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/PAIR-code/saliency/issues/84
import numpy as np
import torch
import torch.nn as nn

INPUT_OUTPUT_GRADIENTS = "INPUT_OUTPUT_GRADIENTS"


class CoreSaliency:
    def GetMask(self, x_value, call_model_function, call_model_args=None):
        raise NotImplementedError

    def GetSmoothedMask(self, x_value, call_model_function, call_model_args=None, stdev_spread=0.15, nsamples=4):
        stdev = stdev_spread * (np.max(x_value) - np.min(x_value))
        total = np.zeros_like(x_value, dtype=np.float32)
        for _ in range(nsamples):
            noise = np.random.normal(0, stdev, x_value.shape).astype(np.float32)
            total += self.GetMask(x_value + noise, call_model_function, call_model_args)
        return total / nsamples


class GradientSaliency(CoreSaliency):
    expected_keys = [INPUT_OUTPUT_GRADIENTS]

    def GetMask(self, x_value, call_model_function, call_model_args=None):
        x_value_batched = np.expand_dims(x_value, axis=0)
        call_model_output = call_model_function(x_value_batched, call_model_args=call_model_args,
                                                expected_keys=self.expected_keys)
        return call_model_output[INPUT_OUTPUT_GRADIENTS][0]


def VisualizeImageGrayscale(image_3d, percentile=99):
    image_2d = np.sum(np.abs(image_3d), axis=0)
    vmax = np.percentile(image_2d, percentile)
    vmin = np.min(image_2d)
    return np.clip((image_2d - vmin) / (vmax - vmin + 1e-12), 0, 1)


def build_model():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))


def make_call_model_function(model):
    class_idx_str = "class_idx_str"

    def call_model_function(images, call_model_args=None, expected_keys=None):
        images = torch.tensor(images, dtype=torch.float32, requires_grad=True)
        target_class_idx = call_model_args[class_idx_str]
        output = model(images)
        outputs = output[:, target_class_idx]
        grads = torch.autograd.grad(outputs, images, grad_outputs=torch.ones_like(outputs))[0]
        return {INPUT_OUTPUT_GRADIENTS: grads.numpy()}

    return call_model_function, class_idx_str


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    model = build_model().eval()
    img = torch.rand(3, 16, 16)
    im = img.unsqueeze(dim=0).requires_grad_(True)
    predictions = model(im)
    prediction_class = int(predictions.argmax(dim=1)[0])
    call_model_function, class_idx_str = make_call_model_function(model)
    call_model_args = {class_idx_str: prediction_class}

    gradient_saliency = GradientSaliency()
    x_value = im[0].numpy()  # expect: GG110
    vanilla_mask_3d = gradient_saliency.GetMask(x_value, call_model_function, call_model_args)
    smoothgrad_mask_3d = gradient_saliency.GetSmoothedMask(x_value, call_model_function, call_model_args)
    print("vanilla", VisualizeImageGrayscale(vanilla_mask_3d).mean())
    print("smoothgrad", VisualizeImageGrayscale(smoothgrad_mask_3d).mean())


if __name__ == "__main__":
    main()
