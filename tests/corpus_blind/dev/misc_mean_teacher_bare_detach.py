# corpus: DAFormer-style self-training computes the EMA teacher's soft targets and calls ema_logits.detach() as a bare statement, so the consistency loss backpropagates into the teacher
# source: https://github.com/lhoyer/DAFormer/issues/59
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SegHead(nn.Module):
    def __init__(self, cin=3, ncls=4):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, ncls, 1)

    def forward(self, x):
        return self.conv2(F.relu(self.conv1(x)))


class SelfTrainingUDA:
    def __init__(self, model, alpha=0.99):
        self.model = model
        self.ema_model = copy.deepcopy(model)
        self.alpha = alpha
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)

    @torch.no_grad()
    def _update_ema(self):
        for ema_p, p in zip(self.ema_model.parameters(), self.model.parameters()):
            ema_p.mul_(self.alpha).add_(p, alpha=1 - self.alpha)

    def pseudo_targets(self, target_img):
        ema_logits = self.ema_model(target_img)
        ema_logits.detach()  # expect: GG112
        return torch.softmax(ema_logits, dim=1)

    def train_step(self, src_img, src_lbl, tgt_img):
        self.optimizer.zero_grad()
        src_loss = F.cross_entropy(self.model(src_img), src_lbl)
        teacher_prob = self.pseudo_targets(tgt_img)
        student_prob = torch.softmax(self.model(tgt_img), dim=1)
        mix_loss = F.mse_loss(student_prob, teacher_prob)  # also: GG112
        (src_loss + mix_loss).backward()  # also: GG112
        self.optimizer.step()
        self._update_ema()
        return {"src": src_loss.item(), "mix": mix_loss.item()}


def main():
    uda = SelfTrainingUDA(SegHead())
    logs = []
    for _ in range(3):
        src = torch.randn(2, 3, 8, 8)
        lbl = torch.randint(0, 4, (2, 8, 8))
        tgt = torch.randn(2, 3, 8, 8)
        logs.append(uda.train_step(src, lbl, tgt))
    assert all(p.grad is not None for p in uda.ema_model.parameters())  # ground truth: gradients flowed into the teacher
    assert uda.pseudo_targets(torch.randn(1, 3, 8, 8)).grad_fn is not None  # ground truth: targets still carry a graph


if __name__ == "__main__":
    main()
