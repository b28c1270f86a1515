# corpus: adversarial-patch training against a YOLOv5-style detector in eval mode; Detect.forward (models/yolo.py) writes the box decode in place into the sigmoid output it saved, so main.py's backward fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/ultralytics/yolov5/issues/671
import torch

from load_data import MaxProbExtractor, PatchApplier, TotalVariation
from models import Model


class PatchTrainer:
    def __init__(self, n_epochs=2, batch_size=2):
        self.yolov5 = Model(nc=2).eval()  # get yolo output in inference form
        self.patch_applier = PatchApplier()
        self.prob_extractor = MaxProbExtractor(cls_id=0, num_cls=2)
        self.total_variation = TotalVariation()
        self.n_epochs = n_epochs
        self.batch_size = batch_size

    def train(self):
        adv_patch_cpu = torch.full((3, 8, 8), 0.5).requires_grad_(True)
        optimizer = torch.optim.Adam([adv_patch_cpu], lr=0.03, amsgrad=True)
        images = torch.rand(4, 3, 32, 32)
        for epoch in range(self.n_epochs):
            for i in range(0, images.shape[0], self.batch_size):
                img_batch = images[i:i + self.batch_size]
                p_img_batch = self.patch_applier(img_batch, adv_patch_cpu)
                output = self.yolov5(p_img_batch)[0]  # get yolo output
                max_prob = self.prob_extractor(output)
                tv = self.total_variation(adv_patch_cpu)
                det_loss = torch.mean(max_prob)
                loss = det_loss + 2.5 * tv
                optimizer.zero_grad()
                loss.backward()  # also: GG107
                optimizer.step()
                adv_patch_cpu.data.clamp_(0, 1)  # keep patch in image range
            print(f"epoch {epoch} det_loss {det_loss.item():.4f}")


def main():
    torch.manual_seed(0)
    trainer = PatchTrainer()
    trainer.train()


if __name__ == "__main__":
    main()
