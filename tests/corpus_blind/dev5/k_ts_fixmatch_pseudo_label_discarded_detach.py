# corpus: FixMatch self-training trainer (torch-em style) where the student is its own teacher: the soft sigmoid pseudo-labels from the weak view are "detached" with a bare pseudo_labels.detach() statement, so the masked dice loss also backpropagates through the pseudo-label branch
# source: https://github.com/constantinpape/torch-em/pull/116
import argparse

import torch
import torch.nn as nn


class DefaultPseudoLabeler:
    def __init__(self, activation=None, confidence_threshold=None, threshold_from_both_sides=True):
        self.activation = activation
        self.confidence_threshold = confidence_threshold
        self.threshold_from_both_sides = threshold_from_both_sides

    def _compute_label_mask_both_sides(self, pseudo_labels):
        upper_threshold = self.confidence_threshold
        lower_threshold = 1.0 - self.confidence_threshold
        return ((pseudo_labels >= upper_threshold) + (pseudo_labels <= lower_threshold)).to(dtype=torch.float32)

    def __call__(self, teacher, input_):
        pseudo_labels = teacher(input_)
        if self.activation is not None:
            pseudo_labels = self.activation(pseudo_labels)
        if self.confidence_threshold is None:
            label_mask = None
        else:
            label_mask = self._compute_label_mask_both_sides(pseudo_labels)
        return pseudo_labels, label_mask


class DiceLoss(nn.Module):
    def forward(self, input_, target, eps=1e-6):
        numerator = (input_ * target).sum()
        denominator = (input_ * input_).sum() + (target * target).sum()
        return 1.0 - 2 * numerator / denominator.clamp(min=eps)


class DefaultSelfTrainingLoss(nn.Module):
    def __init__(self, loss=DiceLoss(), activation=nn.Sigmoid()):
        super().__init__()
        self.activation = activation
        self.loss = loss

    def __call__(self, model, input_, labels, label_filter=None):
        prediction = self.activation(model(input_))
        if label_filter is None:
            return self.loss(prediction, labels)
        return self.loss(prediction * label_filter, labels * label_filter)


class UNetLite(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(inplace=True))
        self.dec = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, x):
        return self.dec(self.enc(x))


class FixMatchTrainer:
    def __init__(self, model, pseudo_labeler, unsupervised_loss, supervised_loss, lr=1e-3):
        self.model = model
        self.pseudo_labeler = pseudo_labeler
        self.unsupervised_loss = unsupervised_loss
        self.supervised_loss = supervised_loss
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self._iteration = 0

    def _train_epoch(self, supervised_loader, unsupervised_loader):
        self.model.train()
        for (xu1, xu2), (xs, ys) in zip(unsupervised_loader, supervised_loader):
            self.optimizer.zero_grad()

            # weak view -> pseudo labels from the model itself, strong view -> prediction
            teacher_input, model_input = xu1, xu2
            pseudo_labels, label_filter = self.pseudo_labeler(self.model, teacher_input)
            pseudo_labels.detach()  # expect: GG112
            unsupervised_loss = self.unsupervised_loss(self.model, model_input, pseudo_labels, label_filter)

            supervised_loss = self.supervised_loss(self.model, xs, ys)
            loss = (supervised_loss + unsupervised_loss) / 2
            loss.backward()
            self.optimizer.step()
            self._iteration += 1
        return supervised_loss.item(), unsupervised_loss.item()


def weak_strong(x):
    return x + 0.01 * torch.randn_like(x), x + 0.2 * torch.randn_like(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--confidence_threshold", type=float, default=0.55)
    args = parser.parse_args([])
    torch.manual_seed(0)

    model = UNetLite()
    pseudo_labeler = DefaultPseudoLabeler(activation=nn.Sigmoid(), confidence_threshold=args.confidence_threshold)
    loss = DefaultSelfTrainingLoss()
    trainer = FixMatchTrainer(model, pseudo_labeler, loss, loss)

    unsupervised_loader = [weak_strong(torch.rand(2, 1, 8, 8)) for _ in range(3)]
    supervised_loader = [(torch.rand(2, 1, 8, 8), (torch.rand(2, 1, 8, 8) > 0.5).float()) for _ in range(3)]
    for epoch in range(args.epochs):
        sup, unsup = trainer._train_epoch(supervised_loader, unsupervised_loader)
        print(f"epoch {epoch}: supervised {sup:.4f} unsupervised {unsup:.4f}")


if __name__ == "__main__":
    main()
