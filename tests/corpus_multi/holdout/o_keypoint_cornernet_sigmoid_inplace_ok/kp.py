import torch
import torch.nn as nn

from kp_utils import _neg_loss, _regr_loss, _sigmoid, _tranpose_and_gather_feat, convolution, make_kp_layer


class kp(nn.Module):
    """Corner keypoint network: shared trunk, heatmap and offset heads per corner."""

    def __init__(self, out_dim=3, cnv_dim=16, curr_dim=16):
        super(kp, self).__init__()
        self.pre = nn.Sequential(convolution(3, 3, 8, stride=2), convolution(3, 8, cnv_dim))
        self.tl_heats = make_kp_layer(cnv_dim, curr_dim, out_dim)
        self.br_heats = make_kp_layer(cnv_dim, curr_dim, out_dim)
        for heat in (self.tl_heats, self.br_heats):
            heat[-1].bias.data.fill_(-2.19)
        self.tl_regrs = make_kp_layer(cnv_dim, curr_dim, 2)
        self.br_regrs = make_kp_layer(cnv_dim, curr_dim, 2)

    def _train(self, image, tl_inds, br_inds):
        cnv = self.pre(image)
        tl_heat, br_heat = self.tl_heats(cnv), self.br_heats(cnv)
        tl_regr, br_regr = self.tl_regrs(cnv), self.br_regrs(cnv)
        tl_regr = _tranpose_and_gather_feat(tl_regr, tl_inds)
        br_regr = _tranpose_and_gather_feat(br_regr, br_inds)
        return [tl_heat, br_heat, tl_regr, br_regr]

    def forward(self, *xs):
        return self._train(*xs)


class AELoss(nn.Module):
    def __init__(self, regr_weight=1, focal_loss=_neg_loss):
        super(AELoss, self).__init__()
        self.regr_weight = regr_weight
        self.focal_loss = focal_loss
        self.regr_loss = _regr_loss

    def forward(self, outs, targets):
        stride = 4
        tl_heats = outs[0::stride]
        br_heats = outs[1::stride]
        tl_regrs = outs[2::stride]
        br_regrs = outs[3::stride]

        gt_tl_heat, gt_br_heat, gt_mask, gt_tl_regr, gt_br_regr = targets

        # focal loss
        focal_loss = 0

        tl_heats = [_sigmoid(t) for t in tl_heats]
        br_heats = [_sigmoid(b) for b in br_heats]

        focal_loss += self.focal_loss(tl_heats, gt_tl_heat)
        focal_loss += self.focal_loss(br_heats, gt_br_heat)

        regr_loss = 0
        for tl_regr, br_regr in zip(tl_regrs, br_regrs):
            regr_loss += self.regr_loss(tl_regr, gt_tl_regr, gt_mask)
            regr_loss += self.regr_loss(br_regr, gt_br_regr, gt_mask)
        regr_loss = self.regr_weight * regr_loss

        loss = (focal_loss + regr_loss) / len(tl_heats)
        return loss.unsqueeze(0)
