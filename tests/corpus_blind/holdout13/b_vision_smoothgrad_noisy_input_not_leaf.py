# corpus: tensorwatch-style saliency report over several methods: the gradcam pass sets input.requires_grad = True on the shared input tensor, so smooth_grad's noisy_inp = inp + noise is a graph node, not a leaf, and the base explainer's inp.requires_grad = True on it fails
# raises: RuntimeError: you can only change requires_grad flags of leaf variables
# source: https://github.com/microsoft/tensorwatch/issues/25
import torch
import torch.nn as nn


class VanillaGradExplainer:
    def __init__(self, model):
        self.model = model

    def _backprop(self, inp, ind):
        inp.requires_grad = True  # also: GG104
        if inp.grad is not None:
            inp.grad.zero_()
        self.model.eval()
        self.model.zero_grad()
        output = self.model(inp)
        if ind is None:
            ind = output.max(1)[1]
        grad_out = output.clone()
        grad_out.fill_(0.0)
        grad_out.scatter_(1, ind.unsqueeze(0).t(), 1.0)
        output.backward(grad_out)
        return inp.grad

    def explain(self, inp, ind=None, raw_inp=None):
        return self._backprop(inp, ind)


class GradCAMExplainer(VanillaGradExplainer):
    def __init__(self, model, target_layer):
        super().__init__(model)
        self.intermediate_act, self.intermediate_grad = [], []
        self.h_fwd = target_layer.register_forward_hook(lambda m, i, o: self.intermediate_act.append(i[0].data.clone()))
        self.h_bwd = target_layer.register_full_backward_hook(
            lambda m, gi, go: self.intermediate_grad.append(go[0].data.clone()))

    def explain(self, inp, ind=None, raw_inp=None):
        self.intermediate_act, self.intermediate_grad = [], []
        _ = self._backprop(inp, ind)
        self.h_fwd.remove()
        self.h_bwd.remove()
        grad, act = self.intermediate_grad[0], self.intermediate_act[0]
        weights = grad.sum(-1).sum(-1).unsqueeze(-1).unsqueeze(-1)
        return torch.clamp((weights * act).sum(1).unsqueeze(1), min=0)


class SmoothGradExplainer:
    def __init__(self, model, base_explainer=None, stdev_spread=0.15, nsamples=4, magnitude=True):
        self.base_explainer = base_explainer or VanillaGradExplainer(model)
        self.stdev_spread, self.nsamples, self.magnitude = stdev_spread, nsamples, magnitude

    def explain(self, inp, ind=None, raw_inp=None):
        stdev = self.stdev_spread * (inp.max() - inp.min())
        total_gradients = 0
        for i in range(self.nsamples):
            noise = torch.randn_like(inp) * stdev
            noisy_inp = inp + noise  # expect: GG104
            noisy_inp.retain_grad()
            grad = self.base_explainer.explain(noisy_inp, ind)
            total_gradients += grad ** 2 if self.magnitude else grad
        return total_gradients / self.nsamples


class SmallVGG(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(8 * 4 * 4, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def _get_explainer(name, model):
    if name == "gradcam":
        return GradCAMExplainer(model, model.features[5])
    if name == "vanilla_grad":
        return VanillaGradExplainer(model)
    if name == "smooth_grad":
        return SmoothGradExplainer(model)
    raise ValueError("Explainer {} is not recognized".format(name))


def get_saliency(model, raw_input, input, label, method="vanilla_grad"):
    if input.grad is not None:
        input.grad.zero_()
    model.eval()
    model.zero_grad()
    saliency = _get_explainer(method, model).explain(input, label, raw_input)
    saliency = saliency.abs().sum(dim=1)[0].squeeze()
    saliency = saliency - saliency.min()
    return (saliency / (saliency.max() + 1e-20)).detach().cpu().numpy()


def get_image_saliency_results(model, raw_image, input, label, methods=("gradcam", "smooth_grad")):
    results = []
    for method in methods:
        sal = get_saliency(model, raw_image, input, label, method=method)
        results.append((method, sal))
    return results


def main():
    torch.manual_seed(0)
    model = SmallVGG()
    raw_image = torch.rand(16, 16, 3)
    input_tensor = raw_image.permute(2, 0, 1).unsqueeze(0).contiguous()
    prediction_tensor = model(input_tensor).argmax(1).detach()
    results = get_image_saliency_results(model, raw_image, input_tensor, prediction_tensor)
    for method, sal in results:
        print(method, sal.shape, float(sal.mean()))


if __name__ == "__main__":
    main()
