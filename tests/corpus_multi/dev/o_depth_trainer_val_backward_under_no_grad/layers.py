import torch
import torch.nn.functional as F


def disp_to_depth(disp, min_depth, max_depth):
    min_disp = 1 / max_depth
    max_disp = 1 / min_depth
    scaled_disp = min_disp + (max_disp - min_disp) * disp
    depth = 1 / scaled_disp
    return scaled_disp, depth


def get_smooth_loss(disp, img):
    grad_disp_x = torch.abs(disp[:, :, :, :-1] - disp[:, :, :, 1:])
    grad_disp_y = torch.abs(disp[:, :, :-1, :] - disp[:, :, 1:, :])
    grad_img_x = torch.mean(torch.abs(img[:, :, :, :-1] - img[:, :, :, 1:]), 1, keepdim=True)
    grad_img_y = torch.mean(torch.abs(img[:, :, :-1, :] - img[:, :, 1:, :]), 1, keepdim=True)
    grad_disp_x *= torch.exp(-grad_img_x)
    grad_disp_y *= torch.exp(-grad_img_y)
    return grad_disp_x.mean() + grad_disp_y.mean()


def compute_losses(opt, inputs, outputs):
    """Supervised log-depth L1 plus edge-aware smoothness, averaged over scales."""
    losses = {}
    total_loss = 0
    for scale in opt.scales:
        disp = outputs[("disp", scale)]
        disp_full = F.interpolate(disp, [opt.height, opt.width], mode="bilinear", align_corners=False)
        _, depth = disp_to_depth(disp_full, opt.min_depth, opt.max_depth)
        outputs[("depth", 0, scale)] = depth
        mask = inputs["depth_gt"] > 0
        loss = torch.abs(torch.log(depth[mask]) - torch.log(inputs["depth_gt"][mask])).mean()
        mean_disp = disp.mean(2, True).mean(3, True)
        norm_disp = disp / (mean_disp + 1e-7)
        color = F.interpolate(inputs[("color", 0, 0)], size=disp.shape[2:], mode="area")
        loss = loss + opt.disparity_smoothness * get_smooth_loss(norm_disp, color) / (2 ** scale)
        total_loss += loss
        losses["loss/{}".format(scale)] = loss
    total_loss /= len(opt.scales)
    losses["loss"] = total_loss
    return losses
