# corpus: A YOLACT-style instance-segmentation net is run on a single image outside torch.no_grad(); its traditional NMS converts the graph-carrying boxes and scores with .cpu().numpy().
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/dbolya/yolact/issues/510
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MAX_SIZE = 64
NUM_CLASSES = 3
NUM_PROTOS = 4


def cnms(dets, thresh):
    x1, y1, x2, y2, scores = dets[:, 0], dets[:, 1], dets[:, 2], dets[:, 3], dets[:, 4]
    areas = (x2 - x1 + 1) * (y2 - y1 + 1)
    order = scores.argsort()[::-1]
    keep = []
    while order.size > 0:
        i = order[0]
        keep.append(i)
        xx1 = np.maximum(x1[i], x1[order[1:]])
        yy1 = np.maximum(y1[i], y1[order[1:]])
        xx2 = np.minimum(x2[i], x2[order[1:]])
        yy2 = np.minimum(y2[i], y2[order[1:]])
        inter = np.maximum(0.0, xx2 - xx1 + 1) * np.maximum(0.0, yy2 - yy1 + 1)
        ovr = inter / (areas[i] + areas[order[1:]] - inter)
        order = order[np.where(ovr <= thresh)[0] + 1]
    return keep


def decode(loc, priors):
    boxes = torch.cat((priors[:, :2] + loc[:, :2] * 0.1 * priors[:, 2:],
                       priors[:, 2:] * torch.exp(loc[:, 2:] * 0.2)), 1)
    boxes = torch.cat((boxes[:, :2] - boxes[:, 2:] / 2, boxes[:, :2] + boxes[:, 2:] / 2), 1)
    return boxes


class Detect(object):
    def __init__(self, num_classes, top_k=20, conf_thresh=0.05, nms_thresh=0.5):
        self.num_classes = num_classes
        self.top_k = top_k
        self.conf_thresh = conf_thresh
        self.nms_thresh = nms_thresh

    def __call__(self, predictions):
        loc_data = predictions["loc"]
        conf_data = predictions["conf"]
        mask_data = predictions["mask"]
        prior_data = predictions["priors"]
        out = []
        for batch_idx in range(loc_data.size(0)):
            decoded_boxes = decode(loc_data[batch_idx], prior_data)
            result = self.detect(batch_idx, conf_data, decoded_boxes, mask_data)
            result["proto"] = predictions["proto"][batch_idx]
            out.append(result)
        return out

    def detect(self, batch_idx, conf_preds, decoded_boxes, mask_data):
        cur_scores = conf_preds[batch_idx, :, 1:].t()
        conf_scores, _ = torch.max(cur_scores, dim=0)
        keep = conf_scores > self.conf_thresh
        scores = cur_scores[:, keep]
        boxes = decoded_boxes[keep, :]
        masks = mask_data[batch_idx, keep, :]
        return self.traditional_nms(boxes, masks, scores, self.nms_thresh, self.conf_thresh)

    def traditional_nms(self, boxes, masks, scores, iou_threshold=0.5, conf_thresh=0.05):
        num_classes = scores.size(0)
        idx_lst, cls_lst, scr_lst = [], [], []
        boxes = boxes * MAX_SIZE
        for _cls in range(num_classes):
            cls_scores = scores[_cls, :]
            conf_mask = cls_scores > conf_thresh
            idx = torch.arange(cls_scores.size(0), device=boxes.device)
            cls_scores = cls_scores[conf_mask]
            idx = idx[conf_mask]
            if cls_scores.size(0) == 0:
                continue
            preds = torch.cat([boxes[conf_mask], cls_scores[:, None]], dim=1).cpu().numpy()  # expect: GG110
            keep = cnms(preds, iou_threshold)
            keep = torch.as_tensor(np.array(keep), dtype=torch.long)
            idx_lst.append(idx[keep])
            cls_lst.append(keep * 0 + _cls)
            scr_lst.append(cls_scores[keep])
        idx = torch.cat(idx_lst, dim=0)
        classes = torch.cat(cls_lst, dim=0)
        scores = torch.cat(scr_lst, dim=0)
        scores, idx2 = scores.sort(0, descending=True)
        idx2 = idx2[:self.top_k]
        scores = scores[:self.top_k]
        idx = idx[idx2]
        classes = classes[idx2]
        return {"box": boxes[idx] / MAX_SIZE, "mask": masks[idx], "class": classes, "score": scores}


class Yolact(nn.Module):
    def __init__(self):
        super(Yolact, self).__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.proto_net = nn.Conv2d(32, NUM_PROTOS, 3, padding=1)
        self.bbox_layer = nn.Conv2d(32, 4, 3, padding=1)
        self.conf_layer = nn.Conv2d(32, NUM_CLASSES + 1, 3, padding=1)
        self.mask_layer = nn.Conv2d(32, NUM_PROTOS, 3, padding=1)
        self.detect = Detect(NUM_CLASSES)

    def make_priors(self, h, w):
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        cx = (xs.reshape(-1).float() + 0.5) / w
        cy = (ys.reshape(-1).float() + 0.5) / h
        return torch.stack([cx, cy, torch.full_like(cx, 0.2), torch.full_like(cy, 0.2)], 1)

    def forward(self, x):
        f = self.backbone(x)
        bs, _, h, w = f.shape
        proto = F.relu(self.proto_net(f)).permute(0, 2, 3, 1)
        loc = self.bbox_layer(f).permute(0, 2, 3, 1).reshape(bs, -1, 4)
        conf = self.conf_layer(f).permute(0, 2, 3, 1).reshape(bs, -1, NUM_CLASSES + 1)
        mask = torch.tanh(self.mask_layer(f).permute(0, 2, 3, 1).reshape(bs, -1, NUM_PROTOS))
        pred_outs = {"loc": loc, "conf": conf, "mask": mask, "priors": self.make_priors(h, w), "proto": proto}
        if self.training:
            return pred_outs
        pred_outs["conf"] = F.softmax(pred_outs["conf"], -1)
        return self.detect(pred_outs)


def postprocess(det_output, w, h, score_threshold=0.15):
    dets = det_output[0]
    keep = dets["score"] > score_threshold
    masks = dets["proto"] @ dets["mask"][keep].t()
    masks = torch.sigmoid(masks).permute(2, 0, 1)
    masks = F.interpolate(masks.unsqueeze(0), (h, w), mode="bilinear", align_corners=False).squeeze(0)
    boxes = dets["box"][keep] * torch.tensor([w, h, w, h])
    return dets["class"][keep], dets["score"][keep], boxes, masks > 0.5


def main():
    torch.manual_seed(0)
    net = Yolact()
    net.eval()
    img = torch.rand(MAX_SIZE, MAX_SIZE, 3) * 255
    h, w, _ = img.shape
    batch = (img.permute(2, 0, 1)[None, ...] / 255.0 - 0.5) / 0.25
    preds = net(batch)
    classes, scores, boxes, masks = postprocess(preds, w, h, score_threshold=0.15)
    print("humans found:", int((classes == 0).sum()), masks.shape)


if __name__ == "__main__":
    main()
