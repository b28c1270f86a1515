# corpus: mean-teacher trainer uses the EMA teacher's predictions as detached consistency targets and updates the teacher in place under no_grad after the student's step, so no gradient crosses steps (correct)
# source: https://github.com/CuriousAI/mean-teacher/issues/29
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def create_model(ema=False):
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 4))
    if ema:
        for param in model.parameters():
            param.detach_()
    return model


def update_ema_variables(model, ema_model, alpha, global_step):
    alpha = min(1 - 1 / (global_step + 1), alpha)
    with torch.no_grad():
        for ema_param, param in zip(ema_model.parameters(), model.parameters()):
            ema_param.mul_(alpha).add_(param, alpha=1 - alpha)


def softmax_mse_loss(input_logits, target_logits):
    return F.mse_loss(F.softmax(input_logits, dim=1), F.softmax(target_logits, dim=1), reduction="sum") / input_logits.size(0)


class MeanTeacherTrainer:
    def __init__(self, ema_decay=0.99, consistency=1.0):
        self.model = create_model()
        self.ema_model = create_model(ema=True)
        self.ema_model.load_state_dict(self.model.state_dict())
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05, momentum=0.9)
        self.class_criterion = nn.CrossEntropyLoss(ignore_index=-1)
        self.ema_decay = ema_decay
        self.consistency = consistency
        self.global_step = 0

    def train_step(self, x, target):
        noise = lambda t: t + 0.05 * torch.randn_like(t)
        model_out = self.model(noise(x))
        ema_out = self.ema_model(noise(x))
        ema_logit = ema_out.detach()
        class_loss = self.class_criterion(model_out, target)
        consistency_loss = self.consistency * softmax_mse_loss(model_out, ema_logit)
        loss = class_loss + consistency_loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.global_step += 1
        update_ema_variables(self.model, self.ema_model, self.ema_decay, self.global_step)
        return {"class": class_loss.item(), "cons": consistency_loss.item()}


def main():
    torch.manual_seed(0)
    trainer = MeanTeacherTrainer()
    for step in range(6):
        x = torch.randn(16, 10)
        target = torch.randint(0, 4, (16,))
        target[8:] = -1  # unlabeled half
        print(step, trainer.train_step(x, target))


if __name__ == "__main__":
    main()
