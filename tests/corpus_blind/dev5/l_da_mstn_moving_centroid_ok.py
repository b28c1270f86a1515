# corpus: MSTN unsupervised domain adaptation (source CE + adversarial domain loss through gradient reversal + semantic loss between moving class centroids kept on the model); the new centroids are stored detached after the loss is formed, so no graph is carried to the next step (correct)
# source: https://github.com/EasonApolo/mstn/issues/4
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.lambd * grad_output, None


class MSTNModel(nn.Module):
    def __init__(self, n_class, in_dim=20, feat_dim=16, decay=0.3):
        super().__init__()
        self.n_class = n_class
        self.decay = decay
        self.feature = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, feat_dim), nn.ReLU())
        self.classifier = nn.Linear(feat_dim, n_class)
        self.discriminator = nn.Sequential(nn.Linear(feat_dim, 16), nn.ReLU(), nn.Linear(16, 1))
        self.register_buffer("s_centroid", torch.zeros(n_class, feat_dim))
        self.register_buffer("t_centroid", torch.zeros(n_class, feat_dim))
        self.MSEloss = nn.MSELoss()
        self.BCEloss = nn.BCEWithLogitsLoss()

    def forward(self, x, grl_lambda=1.0):
        feat = self.feature(x)
        logits = self.classifier(feat)
        d_logits = self.discriminator(GradReverse.apply(feat, grl_lambda))
        return feat, logits, d_logits

    def adloss(self, s_d_logits, t_d_logits, s_feature, t_feature, y_s, t_logits):
        n, d = s_feature.shape
        s_labels, t_labels = y_s, torch.max(t_logits, 1)[1]
        ones = torch.ones_like(s_labels, dtype=torch.float)
        zeros = torch.zeros(self.n_class)
        s_n_classes = zeros.scatter_add(0, s_labels, ones)
        t_n_classes = zeros.scatter_add(0, t_labels, ones)
        ones = torch.ones_like(s_n_classes)
        s_n_classes = torch.max(s_n_classes, ones)
        t_n_classes = torch.max(t_n_classes, ones)
        zeros = torch.zeros(self.n_class, d)
        s_sum_feature = zeros.scatter_add(0, torch.transpose(s_labels.repeat(d, 1), 1, 0), s_feature)
        t_sum_feature = zeros.scatter_add(0, torch.transpose(t_labels.repeat(d, 1), 1, 0), t_feature)
        current_s_centroid = torch.div(s_sum_feature, s_n_classes.view(self.n_class, 1))
        current_t_centroid = torch.div(t_sum_feature, t_n_classes.view(self.n_class, 1))
        decay = self.decay
        s_centroid = (1 - decay) * self.s_centroid + decay * current_s_centroid
        t_centroid = (1 - decay) * self.t_centroid + decay * current_t_centroid
        semantic_loss = self.MSEloss(s_centroid, t_centroid)
        self.s_centroid = s_centroid.detach()
        self.t_centroid = t_centroid.detach()
        d_real = self.BCEloss(s_d_logits, torch.ones_like(s_d_logits))
        d_fake = self.BCEloss(t_d_logits, torch.zeros_like(t_d_logits))
        adv_loss = 0.5 * (d_real + d_fake)
        return adv_loss, semantic_loss


def lambda_schedule(step, max_steps):
    p = step / max_steps
    return 2.0 / (1.0 + torch.exp(torch.tensor(-10.0 * p)).item()) - 1.0


def train(model, optimizer, source_loader, target_loader, args):
    ce = nn.CrossEntropyLoss()
    max_steps = args.epochs * len(source_loader)
    step = 0
    for epoch in range(args.epochs):
        for (s_imgs, s_labels), t_imgs in zip(source_loader, target_loader):
            lam = lambda_schedule(step, max_steps)
            model.train()
            s_feature, s_logits, s_d = model(s_imgs, grl_lambda=lam)
            t_feature, t_logits, t_d = model(t_imgs, grl_lambda=lam)
            C_loss = ce(s_logits, s_labels)
            adv_loss, semantic_loss = model.adloss(s_d, t_d, s_feature, t_feature, s_labels, t_logits)
            F_loss = C_loss + adv_loss + lam * args.semantic_weight * semantic_loss
            optimizer.zero_grad()
            F_loss.backward()
            optimizer.step()
            step += 1
            print("epoch %d step %d C %.4f adv %.4f sem %.4f" % (epoch, step, C_loss.item(), adv_loss.item(), semantic_loss.item()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--semantic_weight", type=float, default=1.0)
    args = parser.parse_args([])
    torch.manual_seed(0)
    n_class = 4
    model = MSTNModel(n_class)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    source_loader = [(torch.randn(8, 20), torch.randint(0, n_class, (8,))) for _ in range(3)]
    target_loader = [torch.randn(8, 20) + 0.5 for _ in range(3)]
    train(model, optimizer, source_loader, target_loader, args)


if __name__ == "__main__":
    main()
