from models import chamfer_distance_mean
from runners.base_runner import BaseRunner
from runners.misc import AverageMeter


class sparenetRunner(BaseRunner):
    """Define the SpareNet runner class"""

    def __init__(self, config, logger=print):
        super().__init__(config, logger)
        self.losses = AverageMeter(["CoarseLoss", "RefineLoss"])
        self.test_losses = AverageMeter(["CoarseLoss", "RefineLoss"])

    def train_step(self, items):
        _, data = items
        _loss, _, _, _, refine_loss, coarse_loss = self.completion(data)
        self.models.zero_grad()
        _loss.backward()
        self.optimizers.step()

        self.loss["coarse_loss"] = coarse_loss * 1000
        self.loss["refine_loss"] = refine_loss * 1000
        self.loss["rec_loss"] = _loss
        self.losses.update([coarse_loss * 1000, refine_loss * 1000])  # expect: GG301

    def completion(self, data):
        coarse_ptcloud, middle_ptcloud, refine_ptcloud, expansion_penalty = self.models(data)
        coarse_loss = chamfer_distance_mean(coarse_ptcloud, data["gtcloud"]).mean()
        middle_loss = chamfer_distance_mean(middle_ptcloud, data["gtcloud"]).mean()
        refine_loss = chamfer_distance_mean(refine_ptcloud, data["gtcloud"]).mean()
        _loss = coarse_loss + middle_loss + refine_loss + expansion_penalty.mean() * 0.1
        return _loss, refine_ptcloud, middle_ptcloud, coarse_ptcloud, refine_loss, coarse_loss
