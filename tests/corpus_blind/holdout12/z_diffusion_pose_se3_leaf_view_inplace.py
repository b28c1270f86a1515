# corpus: iFusion pose estimation with a Zero123-style diffusion model: the relative pose is a leaf xi in se(3) optimised by Adam, and the liegroups-style SE3.exp slices rho = xi[:, :3] and calls rho.unsqueeze_(dim=2), an in-place op on a view of the leaf that requires grad
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/chinhsuanwu/ifusion/issues/4
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


# ------------------------------------------------ liegroups.torch (trimmed)
def isclose(mat1, mat2, tol=1e-6):
    return (mat1 - mat2).abs_().lt(tol)


class SO3:
    dim, dof = 3, 3

    def __init__(self, mat):
        self.mat = mat

    @classmethod
    def wedge(cls, phi):
        Phi = phi.new_zeros(phi.shape[0], 3, 3)
        Phi[:, 0, 1] = -phi[:, 2]
        Phi[:, 1, 0] = phi[:, 2]
        Phi[:, 0, 2] = phi[:, 1]
        Phi[:, 2, 0] = -phi[:, 1]
        Phi[:, 1, 2] = -phi[:, 0]
        Phi[:, 2, 1] = phi[:, 0]
        return Phi

    @classmethod
    def exp(cls, phi):
        angle = phi.norm(p=2, dim=1)
        eye = torch.eye(3, dtype=phi.dtype).expand(phi.shape[0], 3, 3)
        if bool(isclose(angle, 0.).all()):
            return cls(eye + cls.wedge(phi))
        axis = phi / angle.unsqueeze(1)
        s, c = angle.sin().view(-1, 1, 1), angle.cos().view(-1, 1, 1)
        A = c * eye + (1 - c) * torch.bmm(axis.unsqueeze(2), axis.unsqueeze(1)) + s * cls.wedge(axis)
        return cls(A)

    @classmethod
    def left_jacobian(cls, phi):
        angle = phi.norm(p=2, dim=1)
        eye = torch.eye(3, dtype=phi.dtype).expand(phi.shape[0], 3, 3)
        if bool(isclose(angle, 0.).all()):
            return eye + 0.5 * cls.wedge(phi)
        axis = phi / angle.unsqueeze(1)
        s, c = angle.sin(), angle.cos()
        A = (s / angle).view(-1, 1, 1) * eye
        B = (1 - s / angle).view(-1, 1, 1) * torch.bmm(axis.unsqueeze(2), axis.unsqueeze(1))
        C = ((1 - c) / angle).view(-1, 1, 1) * cls.wedge(axis)
        return A + B + C


class SE3:
    dim, dof = 4, 6
    RotationType = SO3

    def __init__(self, rot, trans):
        self.rot = rot
        self.trans = trans

    @classmethod
    def exp(cls, xi):
        if xi.dim() < 2:
            xi = xi.unsqueeze(dim=0)
        rho = xi[:, :3]
        phi = xi[:, 3:]
        rot = cls.RotationType.exp(phi)
        rot_jac = cls.RotationType.left_jacobian(phi)
        if rot_jac.dim() < 3:
            rot_jac.unsqueeze_(dim=0)
        if rho.dim() < 3:
            rho.unsqueeze_(dim=2)  # expect: GG108
        trans = torch.bmm(rot_jac, rho).squeeze_()
        return cls(rot, trans)

    def as_matrix(self):
        R = self.rot.mat.squeeze(0)
        bottom = torch.tensor([[0.0, 0.0, 0.0, 1.0]])
        return torch.cat([torch.cat([R, self.trans.view(3, 1)], dim=1), bottom], dim=0)


# -------------------------------------------------------------- util/pose.py
def mat2latlon(T):
    t = T[:3, 3]
    r = torch.norm(t) + 1e-8
    theta = torch.asin(torch.clamp(t[1] / r, -1 + 1e-6, 1 - 1e-6))
    azimuth = torch.atan2(t[0], t[2])
    return torch.stack([theta, azimuth])


def latlon2mat(latlon):
    mats = []
    for theta, azimuth, radius in latlon:
        t = torch.tensor([math.cos(theta) * math.sin(azimuth), math.sin(theta),
                          math.cos(theta) * math.cos(azimuth)]) * radius
        T = torch.eye(4)
        T[:3, 3] = t
        mats.append(T)
    return torch.stack(mats)


def make_T(theta, azimuth, distance):
    return torch.stack([theta, torch.sin(azimuth), torch.cos(azimuth), distance])


# ---------------------------------------------------------- model/zero123.py
class Zero123(nn.Module):
    """Noise-prediction loss of a tiny view-conditioned denoiser (weights frozen)."""

    def __init__(self):
        super().__init__()
        self.cond = nn.Linear(4, 8)
        self.unet = nn.Sequential(nn.Conv2d(6 + 8, 8, 3, padding=1), nn.SiLU(), nn.Conv2d(8, 3, 3, padding=1))
        for p in self.parameters():
            p.requires_grad_(False)
        self.device = torch.device("cpu")

    def forward(self, batch):
        x0 = batch["image_target"]
        noise = torch.randn_like(x0)
        a = torch.rand(x0.shape[0], 1, 1, 1) * 0.8 + 0.1
        x_t = a.sqrt() * x0 + (1 - a).sqrt() * noise
        emb = self.cond(batch["T"]).view(x0.shape[0], 8, 1, 1).expand(-1, -1, x0.shape[2], x0.shape[3])
        eps = self.unet(torch.cat([x_t, batch["image_cond"], emb], dim=1))
        return F.mse_loss(eps, noise)


# ---------------------------------------------------------------- ifusion.py
def optimize_pose_loop(model, image_cond, image_target, T, default_radius, search_radius_range, max_step):
    xi = torch.randn(6) * 1e-6
    xi.requires_grad_()
    optimizer = torch.optim.Adam([xi], lr=1e-2)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)

    total_loss = 0.0
    for step in range(max_step):
        optimizer.zero_grad()
        T_delta = SE3.exp(xi).as_matrix()
        T_ = T @ T_delta

        latlon = mat2latlon(T_).squeeze()
        theta, azimuth = latlon[0], latlon[1]
        distance = torch.sin(torch.norm(T_[:3, 3]) - default_radius) * search_radius_range

        idx = [0, 1] if torch.rand(1) < 0.5 else [1, 0]
        batch = {
            "image_cond": image_cond[idx],
            "image_target": image_target[idx],
            "T": torch.stack((make_T(theta, azimuth, distance),
                              make_T(-theta, -azimuth, -distance)))[idx],
        }
        loss = model(batch)
        total_loss += loss.item()
        loss.backward()
        optimizer.step()
        scheduler.step(total_loss)
    return total_loss, theta, azimuth, distance


def optimize_pose_pair(model, ref_image, qry_image, init_latlon, **kwargs):
    image_cond = torch.cat((ref_image, qry_image))
    image_target = torch.cat((qry_image, ref_image))
    init_T = latlon2mat(init_latlon)
    results = []
    for T in init_T:
        total_loss, theta, azimuth, distance = optimize_pose_loop(
            model, image_cond=image_cond, image_target=image_target, T=T, **kwargs)
        results.append((total_loss, theta.item(), azimuth.item(), distance.item()))
    results = torch.tensor(results)
    best_idx = torch.argmin(results[:, 0])
    return results[best_idx][1:]


def main():
    model = Zero123()
    ref_image = torch.rand(1, 3, 8, 8)
    qry_image = torch.rand(1, 3, 8, 8)
    pose = optimize_pose_pair(model, ref_image, qry_image,
                              init_latlon=[[0.0, 0.0, 1.0], [0.0, math.pi / 2, 1.0]],
                              default_radius=1.0, search_radius_range=0.5, max_step=4)
    print("best pose", pose.tolist())


if __name__ == "__main__":
    main()
