# corpus: A SymmNets domain-adaptation solver steps the classifier optimizer after the first (retain_graph) backward, then backpropagates the feature-extractor loss through the same forward, whose saved classifier weights were just updated in place.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/Gorilla-Lab-SCUT/MultiClassDA/issues/2
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TargetDiscrimLoss(nn.Module):
    def __init__(self, dim=1, num_classes=31):
        super(TargetDiscrimLoss, self).__init__()
        self.num_classes = num_classes
        self.dim = dim

    def forward(self, input):
        prob = F.softmax(input, dim=self.dim)
        return -(prob[:, self.num_classes:].sum(1).log().mean())


class ConcatenatedCELoss(nn.Module):
    def __init__(self, dim=1, num_classes=31):
        super(ConcatenatedCELoss, self).__init__()
        self.num_classes = num_classes
        self.dim = dim

    def forward(self, input):
        prob = F.softmax(input, dim=self.dim)
        prob_s = prob[:, :self.num_classes]
        prob_t = prob[:, self.num_classes:]
        prob_s = prob_s / prob_s.sum(1, keepdim=True)
        prob_t = prob_t / prob_t.sum(1, keepdim=True)
        return -0.5 * ((prob_s * prob_t.detach()).sum(1).log().mean() + (prob_t * prob_s.detach()).sum(1).log().mean())


class AverageMeter(object):
    def __init__(self):
        self.sum, self.count, self.avg = 0.0, 0, 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class FeatureExtractor(nn.Module):
    def __init__(self, out_dim=64):
        super(FeatureExtractor, self).__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, 2, 1)
        self.bn1 = nn.BatchNorm2d(16)
        self.layer1 = nn.Sequential(nn.Conv2d(16, out_dim, 3, 2, 1), nn.BatchNorm2d(out_dim), nn.ReLU())

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return F.adaptive_avg_pool2d(self.layer1(x), 1).flatten(1)


class SymmNetsV2Solver(object):
    def __init__(self, net, loaders, num_classes=5, base_lr=0.01, max_epoch=2):
        self.num_classes = num_classes
        self.feature_extractor = net["feature_extractor"]
        self.classifier = net["classifier"]
        self.loaders = loaders
        self.base_lr = base_lr
        self.max_epoch = max_epoch
        self.epoch = 0
        self.CELoss = nn.CrossEntropyLoss()
        self.TargetDiscrimLoss = TargetDiscrimLoss(num_classes=num_classes)
        self.ConcatenatedCELoss = ConcatenatedCELoss(num_classes=num_classes)
        self.optimizer_feature_extractor = torch.optim.SGD(self.feature_extractor.parameters(), lr=base_lr * 0.1, momentum=0.9, nesterov=True)
        self.optimizer_classifier = torch.optim.SGD(self.classifier.parameters(), lr=base_lr, momentum=0.9, nesterov=True)

    def update_network(self):
        lam = 2 / (1 + math.exp(-1 * 10 * self.epoch / self.max_epoch)) - 1
        classifier_loss = AverageMeter()
        feature_extractor_loss = AverageMeter()
        self.feature_extractor.train()
        self.classifier.train()
        for (source_data, source_gt), target_data in zip(self.loaders["source"], self.loaders["target"]):
            feature_source = self.feature_extractor(source_data)
            output_source = self.classifier(feature_source)
            feature_target = self.feature_extractor(target_data)
            output_target = self.classifier(feature_target)

            loss_task_fs = self.CELoss(output_source[:, :self.num_classes], source_gt)
            loss_task_ft = self.CELoss(output_source[:, self.num_classes:], source_gt)
            loss_discrim_source = self.CELoss(output_source, source_gt)
            loss_discrim_target = self.TargetDiscrimLoss(output_target)
            loss_summary_classifier = loss_task_fs + loss_task_ft + loss_discrim_source + loss_discrim_target

            source_gt_for_ft_in_fst = source_gt + self.num_classes
            loss_confusion_source = 0.5 * self.CELoss(output_source, source_gt) + 0.5 * self.CELoss(output_source, source_gt_for_ft_in_fst)
            loss_confusion_target = self.ConcatenatedCELoss(output_target)
            loss_summary_feature_extractor = loss_confusion_source + lam * loss_confusion_target

            self.optimizer_classifier.zero_grad()
            loss_summary_classifier.backward(retain_graph=True)
            self.optimizer_classifier.step()  # expect: GG111

            self.optimizer_feature_extractor.zero_grad()
            loss_summary_feature_extractor.backward()  # also: GG111
            self.optimizer_feature_extractor.step()

            classifier_loss.update(loss_summary_classifier.item(), source_data.size(0))
            feature_extractor_loss.update(loss_summary_feature_extractor.item(), source_data.size(0))
            print("  Train:epoch: %d, LossCla: %3f, LossFeat: %3f" % (self.epoch, classifier_loss.avg, feature_extractor_loss.avg))

    def solve(self):
        while self.epoch < self.max_epoch:
            self.update_network()
            self.epoch += 1


def make_loaders(num_classes, n=3, bs=4):
    source = [(torch.randn(bs, 3, 16, 16), torch.randint(0, num_classes, (bs,))) for _ in range(n)]
    target = [torch.randn(bs, 3, 16, 16) for _ in range(n)]
    return {"source": source, "target": target}


def main():
    torch.manual_seed(0)
    num_classes = 5
    net = {"feature_extractor": FeatureExtractor(64), "classifier": nn.Linear(64, 2 * num_classes)}
    solver = SymmNetsV2Solver(net, make_loaders(num_classes), num_classes=num_classes)
    solver.solve()


if __name__ == "__main__":
    main()
