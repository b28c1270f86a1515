# corpus: DANN with a custom torch.autograd.Function gradient-reversal layer (forward returns x.view_as(x), backward negates and scales grad_output); one summed loss per step, logging through .data.cpu().numpy() (correct)
# source: https://github.com/fungtion/DANN/issues/3
import argparse
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Function


class ReverseLayerF(Function):

    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha
        return output, None


class CNNModel(nn.Module):

    def __init__(self):
        super().__init__()
        self.feature = nn.Sequential()
        self.feature.add_module("f_conv1", nn.Conv2d(3, 8, kernel_size=5))
        self.feature.add_module("f_bn1", nn.BatchNorm2d(8))
        self.feature.add_module("f_pool1", nn.MaxPool2d(2))
        self.feature.add_module("f_relu1", nn.ReLU(True))

        self.class_classifier = nn.Sequential()
        self.class_classifier.add_module("c_fc1", nn.Linear(8 * 4 * 4, 32))
        self.class_classifier.add_module("c_relu1", nn.ReLU(True))
        self.class_classifier.add_module("c_fc2", nn.Linear(32, 10))
        self.class_classifier.add_module("c_softmax", nn.LogSoftmax(dim=1))

        self.domain_classifier = nn.Sequential()
        self.domain_classifier.add_module("d_fc1", nn.Linear(8 * 4 * 4, 32))
        self.domain_classifier.add_module("d_relu1", nn.ReLU(True))
        self.domain_classifier.add_module("d_fc2", nn.Linear(32, 2))
        self.domain_classifier.add_module("d_softmax", nn.LogSoftmax(dim=1))

    def forward(self, input_data, alpha):
        feature = self.feature(input_data)
        feature = feature.view(-1, 8 * 4 * 4)
        reverse_feature = ReverseLayerF.apply(feature, alpha)
        class_output = self.class_classifier(feature)
        domain_output = self.domain_classifier(reverse_feature)
        return class_output, domain_output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--n_epoch", type=int, default=2)
    parser.add_argument("--len_dataloader", type=int, default=3)
    args = parser.parse_args([])

    torch.manual_seed(0)
    my_net = CNNModel()
    optimizer = torch.optim.Adam(my_net.parameters(), lr=args.lr)
    loss_class = torch.nn.NLLLoss()
    loss_domain = torch.nn.NLLLoss()
    for p in my_net.parameters():
        p.requires_grad = True

    f_conv1_init = my_net.feature.f_conv1.weight.detach().clone()
    for epoch in range(args.n_epoch):
        for i in range(args.len_dataloader):
            p = float(i + epoch * args.len_dataloader) / args.n_epoch / args.len_dataloader
            alpha = 2. / (1. + np.exp(-10 * p)) - 1

            # training model using source data
            s_img = torch.rand(args.batch_size, 3, 12, 12)
            s_label = torch.randint(0, 10, (args.batch_size,))
            my_net.zero_grad()
            domain_label = torch.zeros(args.batch_size).long()
            class_output, domain_output = my_net(input_data=s_img, alpha=alpha)
            err_s_label = loss_class(class_output, s_label)
            err_s_domain = loss_domain(domain_output, domain_label)

            # training model using target data
            t_img = torch.rand(args.batch_size, 3, 12, 12)
            domain_label = torch.ones(args.batch_size).long()
            _, domain_output = my_net(input_data=t_img, alpha=alpha)
            err_t_domain = loss_domain(domain_output, domain_label)
            err = err_t_domain + err_s_domain + err_s_label
            err.backward()
            optimizer.step()

            sys.stdout.write("\r epoch: %d, [iter: %d / all %d], err_s_label: %f, err_s_domain: %f, err_t_domain: %f\n"
                             % (epoch, i + 1, args.len_dataloader, err_s_label.data.cpu().numpy(),
                                err_s_domain.data.cpu().numpy(), err_t_domain.data.cpu().item()))
    print("feature extractor trained:", (my_net.feature.f_conv1.weight - f_conv1_init).abs().sum().item() > 0)


if __name__ == "__main__":
    main()
