# corpus: domain-unlearning train function backprops the regression loss with retain_graph=True, steps the encoder optimizer, then backprops the confusion loss through the same encoder features
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/nkdinsdale/Unlearning_for_MRI_harmonisation/issues/3
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConfusionLoss(nn.Module):
    """Push the domain predictor towards a uniform output."""

    def forward(self, x, target):
        log_sm = F.log_softmax(x, dim=1)
        return -torch.mean(torch.sum(log_sm, dim=1) / x.size(1))


def build_models():
    encoder = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 8), nn.ReLU())
    regressor = nn.Linear(8, 1)
    domain_predictor = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
    return [encoder, regressor, domain_predictor]


def train_unlearn_threedatasets(args, models, train_loaders, optimizers, criterions, epoch):
    [encoder, regressor, domain_predictor] = models
    [optimizer, optimizer_conf, optimizer_dm] = optimizers
    [criteron, conf_criterion, domain_criterion] = criterions
    regressor_loss, domain_loss, conf_loss, batches = 0, 0, 0, 0
    encoder.train(); regressor.train(); domain_predictor.train()

    for batch_idx, ((b_data, b_target), (o_data, o_target), (w_data, w_target)) in enumerate(zip(*train_loaders)):
        n1, n2 = len(b_data), len(o_data)
        data = torch.cat((b_data, o_data, w_data), 0)
        target = torch.cat((b_target, o_target, w_target), 0)
        domain_target = torch.cat([torch.full((len(d),), k) for k, d in enumerate((b_data, o_data, w_data))])
        batches += 1

        # First update the encoder and regressor
        optimizer.zero_grad()
        features = encoder(data)
        output_pred = regressor(features)
        loss_1 = criteron(output_pred[:n1], target[:n1])
        loss_2 = criteron(output_pred[n1:n1 + n2], target[n1:n1 + n2])
        loss_3 = criteron(output_pred[n1 + n2:], target[n1 + n2:])
        loss_total = loss_1 + loss_2 + loss_3
        loss_total.backward(retain_graph=True)  # also: GG111
        optimizer.step()  # expect: GG111

        # Now update just the domain classifier
        optimizer_dm.zero_grad()
        output_dm = domain_predictor(features.detach())
        loss_dm = args.alpha * domain_criterion(output_dm, domain_target)
        loss_dm.backward()
        optimizer_dm.step()

        # Now update just the encoder using the domain loss
        optimizer_conf.zero_grad()
        output_dm_conf = domain_predictor(features)
        loss_conf = args.beta * conf_criterion(output_dm_conf, domain_target)
        loss_conf.backward(retain_graph=False)  # also: GG111
        optimizer_conf.step()

        regressor_loss += loss_total.item()
        domain_loss += loss_dm.item()
        conf_loss += loss_conf.item()
        acc = np.mean(np.argmax(output_dm_conf.detach().numpy(), axis=1) == domain_target.numpy())
        print('Train Epoch: {} [{}]\tLoss: {:.6f}\tConf: {:.4f}\tDom: {:.4f}\tAcc: {:.2f}'.format(
            epoch, batch_idx, loss_total.item(), loss_conf.item(), loss_dm.item(), acc))
    return regressor_loss / batches, domain_loss / batches, conf_loss / batches


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(alpha=1.0, beta=10.0, epochs=2)
    models = build_models()
    encoder, regressor, domain_predictor = models
    optimizer = torch.optim.Adam(list(encoder.parameters()) + list(regressor.parameters()), lr=1e-3)
    optimizer_conf = torch.optim.Adam(encoder.parameters(), lr=1e-4)
    optimizer_dm = torch.optim.Adam(domain_predictor.parameters(), lr=1e-4)
    loaders = [[(torch.randn(3, 12) + k, torch.rand(3, 1) * 80) for _ in range(3)] for k in range(3)]
    criterions = [nn.MSELoss(), ConfusionLoss(), nn.CrossEntropyLoss()]
    for epoch in range(1, args.epochs + 1):
        train_unlearn_threedatasets(args, models, loaders, [optimizer, optimizer_conf, optimizer_dm], criterions, epoch)


if __name__ == "__main__":
    main()
