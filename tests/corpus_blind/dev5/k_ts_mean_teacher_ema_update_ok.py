# corpus: Mean Teacher semi-supervised trainer: the EMA teacher's parameters are detached, its predictions are used as constant targets, and update_ema_variables mutates the teacher in place through .data after the student's optimizer step (correct)
# source: https://github.com/CuriousAI/mean-teacher/issues/28
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, in_dim=10, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.relu = nn.ReLU(inplace=True)
        self.drop = nn.Dropout(0.2)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, x):
        return self.fc2(self.drop(self.relu(self.fc1(x))))


def create_model(ema=False):
    model = Net()
    if ema:
        for param in model.parameters():
            param.detach_()
    return model


def softmax_mse_loss(input_logits, target_logits):
    input_softmax = F.softmax(input_logits, dim=1)
    target_softmax = F.softmax(target_logits, dim=1)
    num_classes = input_logits.size()[1]
    return F.mse_loss(input_softmax, target_softmax, reduction="sum") / num_classes


def update_ema_variables(model, ema_model, alpha, global_step):
    alpha = min(1 - 1 / (global_step + 1), alpha)
    for ema_param, param in zip(ema_model.parameters(), model.parameters()):
        ema_param.data.mul_(alpha).add_(param.data, alpha=1 - alpha)


class MeanTeacherTrainer:
    def __init__(self, args):
        self.args = args
        self.model = create_model()
        self.ema_model = create_model(ema=True)
        self.ema_model.load_state_dict(self.model.state_dict())
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr, momentum=0.9)
        self.class_criterion = nn.CrossEntropyLoss(reduction="sum", ignore_index=-1)
        self.global_step = 0

    def train_epoch(self, loader, epoch):
        self.model.train()
        self.ema_model.train()
        meters = {"class": 0.0, "cons": 0.0}
        for i, ((input, ema_input), target) in enumerate(loader):
            minibatch_size = len(target)
            labeled_minibatch_size = target.ne(-1).sum().item()

            ema_model_out = self.ema_model(ema_input)
            model_out = self.model(input)
            ema_logit = ema_model_out.detach()

            class_loss = self.class_criterion(model_out, target) / minibatch_size
            consistency_loss = self.args.consistency * softmax_mse_loss(model_out, ema_logit) / minibatch_size
            loss = class_loss + consistency_loss

            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.global_step += 1
            update_ema_variables(self.model, self.ema_model, self.args.ema_decay, self.global_step)

            meters["class"] += class_loss.item()
            meters["cons"] += consistency_loss.item()
        print(epoch, {k: round(v / len(loader), 4) for k, v in meters.items()}, "labeled", labeled_minibatch_size)


def make_loader(n_batches=3, batch_size=8):
    loader = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, 10)
        target = torch.randint(0, 4, (batch_size,))
        target[batch_size // 2:] = -1
        loader.append(((x + 0.05 * torch.randn_like(x), x + 0.05 * torch.randn_like(x)), target))
    return loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--ema_decay", type=float, default=0.99)
    parser.add_argument("--consistency", type=float, default=10.0)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = MeanTeacherTrainer(args)
    loader = make_loader()
    for epoch in range(args.epochs):
        trainer.train_epoch(loader, epoch)


if __name__ == "__main__":
    main()
