# corpus: GAN latent-space Hessian via forward finite differences (GANForwardHVPOperator): both perturbed codes z0 +/- eps*v go through the generator in one batch and torch.autograd.grad is called on the per-image unit activations, a length-2 vector, without grad_outputs
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/Animadversio/GAN-Geometry/issues/4
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


class Generator(nn.Module):
    """Tiny stand-in for the BigGAN/FC6 wrappers: latent code -> image."""

    def __init__(self, code_dim=8):
        super().__init__()
        self.fc = nn.Linear(code_dim, 3 * 8 * 8)
        self.up = nn.ConvTranspose2d(3, 3, 4, stride=2, padding=1)

    def visualize(self, code):
        img = torch.tanh(self.fc(code)).view(-1, 3, 8, 8)
        return (torch.tanh(self.up(img)) + 1) / 2


class UnitObjective(nn.Module):
    """Activation of one channel of a CNN layer, one value per image."""

    def __init__(self, unit=2):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 6, 3), nn.Softplus(), nn.Conv2d(6, 6, 3))
        self.unit = unit

    def forward(self, img):
        act = self.features(img)
        return act[:, self.unit, act.shape[2] // 2, act.shape[3] // 2]


class Operator:
    def __init__(self, size):
        self.size = size

    def apply(self, vec):
        raise NotImplementedError


class GANForwardHVPOperator(Operator):
    def __init__(self, model, code, objective,
                 preprocess=lambda img: F.interpolate(img, (20, 20), mode='bilinear', align_corners=True),
                 EPS=1E-2):
        for param in model.parameters():
            param.requires_grad_(False)
        for param in objective.parameters():
            param.requires_grad_(False)
        self.model = model
        self.objective = objective
        self.preprocess = preprocess
        self.code = code.clone().requires_grad_(False).float()
        self.img_ref = self.model.visualize(self.code)
        resz_img = self.preprocess(self.img_ref)
        activ = self.objective(resz_img)
        self.size = self.code.numel()
        self.EPS = EPS
        self.perturb_norm = self.code.norm() * self.EPS

    def apply(self, vec, EPS=None):
        vecnorm = vec.norm()
        if vecnorm < 1E-8:
            return torch.zeros_like(vec)
        EPS = self.EPS if EPS is None else EPS
        self.perturb_norm = self.code.norm() * EPS
        eps = self.perturb_norm / vecnorm
        perturb_vecs = self.code.detach() + eps * torch.tensor([1, -1.0]).view(-1, 1) * vec.detach()
        perturb_vecs.requires_grad_(True)
        img = self.model.visualize(perturb_vecs)
        resz_img = self.preprocess(img)
        activs = self.objective(resz_img)
        ftgrad_both = torch.autograd.grad(activs, perturb_vecs, retain_graph=False, create_graph=False, only_inputs=True)[0]  # expect: GG109
        hessian_vec_prod = (ftgrad_both[0, :] - ftgrad_both[1, :]) / (2 * eps)
        return hessian_vec_prod

    def vHv_form(self, vec):
        hessian_vec_prod = self.apply(vec)
        return (hessian_vec_prod * vec).sum()


def power_iteration(operator, steps=5):
    vec = torch.randn(1, operator.size)
    vec = vec / vec.norm()
    eigval = 0.0
    for _ in range(steps):
        hv = operator.apply(vec).view(1, -1)
        eigval = (hv * vec).sum().item()
        vec = hv / (hv.norm() + 1e-12)
    return eigval, vec


def main():
    G = Generator()
    objective = UnitObjective()
    code = torch.randn(1, 8)
    hvp_op = GANForwardHVPOperator(G, code, objective, EPS=1E-2)
    eigval, eigvec = power_iteration(hvp_op)
    print("top Hessian eigenvalue", eigval)


if __name__ == "__main__":
    main()
