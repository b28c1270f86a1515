# corpus: influence functions (LiSSA s_test recursion): h_estimate starts from a create_graph=True gradient and each hvp() is taken with create_graph=True, so the carried h_estimate keeps every earlier Hessian-vector product's graph and each recursion step differentiates through all of them (silently slower and ever larger)
# source: https://github.com/nimarb/pytorch_influence_functions/issues/5
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import grad
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, num_classes)

    def forward(self, x):
        x = F.max_pool2d(torch.tanh(self.conv(x)), 2)
        return self.fc(x.flatten(1))


def calc_loss(y, t):
    return F.cross_entropy(y, t)


def grad_z(z, t, model):
    model.eval()
    y = model(z)
    loss = calc_loss(y, t)
    params = [p for p in model.parameters() if p.requires_grad]
    return list(grad(loss, params, create_graph=True))


def hvp(y, w, v):
    if len(w) != len(v):
        raise ValueError("w and v must have the same length.")
    first_grads = grad(y, w, retain_graph=True, create_graph=True)
    elemwise_products = 0
    for grad_elem, v_elem in zip(first_grads, v):
        elemwise_products += torch.sum(grad_elem * v_elem)
    return_grads = grad(elemwise_products, w, create_graph=True)
    return return_grads


def display_progress(text, current_step, last_step, t0):
    if current_step % 5 == 0 or current_step == last_step - 1:
        print(f"{text} {current_step + 1}/{last_step} ({time.time() - t0:.2f}s)")


def s_test(z_test, t_test, model, z_loader, damp=0.01, scale=25.0, recursion_depth=7):
    v = grad_z(z_test, t_test, model)
    h_estimate = v.copy()
    t0 = time.time()
    for i in range(recursion_depth):
        for x, t in z_loader:
            y = model(x)
            loss = calc_loss(y, t)
            params = [p for p in model.parameters() if p.requires_grad]
            hv = hvp(loss, params, h_estimate)  # expect: GG104
            # Recursively caclulate h_estimate
            h_estimate = [  # also: GG104
                _v + (1 - damp) * _h_e - _hv / scale
                for _v, _h_e, _hv in zip(v, h_estimate, hv)]
            break
        display_progress("Calc. s_test recursions: ", i, recursion_depth, t0)
    return h_estimate


def calc_influence_single(model, train_loader, test_x, test_y, train_points):
    s_test_vec = s_test(test_x, test_y, model, train_loader)
    influences = []
    for x, t in train_points:
        grad_z_vec = grad_z(x, t, model)
        tmp_influence = -sum(torch.sum(k * j).item() for k, j in zip(grad_z_vec, s_test_vec)) / len(train_points)
        influences.append(tmp_influence)
    harmful = sorted(range(len(influences)), key=lambda i: influences[i])
    return influences, harmful[::-1], harmful


def main():
    torch.manual_seed(0)
    model = SmallCNN()
    xs, ys = torch.randn(32, 1, 8, 8), torch.randint(0, 3, (32,))
    train_loader = DataLoader(TensorDataset(xs, ys), batch_size=8, shuffle=True)
    test_x, test_y = torch.randn(1, 1, 8, 8), torch.tensor([1])
    train_points = [(xs[i:i + 1], ys[i:i + 1]) for i in range(4)]
    influences, helpful, harmful = calc_influence_single(model, train_loader, test_x, test_y, train_points)
    print("influences", [round(v, 5) for v in influences], "most helpful", helpful[:2], "most harmful", harmful[:2])


if __name__ == "__main__":
    main()
