# corpus: Federated MRI-reconstruction domain-adaptation client (LocalUpdate_ad_da) that turns the generator's adversarial loss into a float with .detach().item() before adding it to the L1 loss, so the feature-discriminator term never reaches the reconstruction net.
# source: https://github.com/guopengf/FL-MRCM/issues/10
import time

import numpy as np
import torch
from torch import nn
from torch.autograd import Variable
from torch.nn import functional as F


class ReconNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU())
        self.dec = nn.Conv2d(4, 1, 3, padding=1)

    def forward(self, x):
        z = self.enc(x)
        return self.dec(z), z


class FeatureDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(4 * 8 * 8, 2))

    def forward(self, z):
        return self.net(z)


class LocalUpdate_ad_da(object):
    def __init__(self, args, device, dataset, dataset_target, optimizer, optimizer_fd, flag):
        self.args = args
        self.device = device
        self.loss_func = nn.L1Loss().to(device)
        self.adv_loss = nn.BCEWithLogitsLoss().to(device)
        self.ldr_train = dataset
        self.target_domain = dataset_target
        self.optimizer = optimizer
        self.optimizer_fd = optimizer_fd
        self.flag = flag

    def set_requires_grad(self, nets, requires_grad=False):
        if not isinstance(nets, list):
            nets = [nets]
        for net in nets:
            if net is not None:
                for param in net.parameters():
                    param.requires_grad = requires_grad

    def train(self, net, net_fd, epoch, idx):
        net.train()
        net_fd.train()
        optimizer = self.optimizer
        optimizer_fd = self.optimizer_fd
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=40, gamma=0.1)

        epoch_loss = []
        for iter in range(self.args['local_ep']):
            batch_loss = []
            batch_loss_adv_g = []
            batch_loss_adv_d = []
            for batch_idx, (batch, batch_t) in enumerate(zip(self.ldr_train, self.target_domain)):
                input, target = batch
                input_t, target_t = batch_t
                net.zero_grad()
                net_fd.zero_grad()
                output, z = net(input.to(self.device))
                output_t, z_t = net(input_t.to(self.device))

                src_domain_code = np.repeat(np.array([[*([1]), *([0])]]), input.shape[0], axis=0)
                tgt_domain_code = np.repeat(np.array([[*([0]), *([1])]]), input_t.shape[0], axis=0)
                src_domain_code = Variable(torch.FloatTensor(src_domain_code).to(self.device), requires_grad=False)
                tgt_domain_code = Variable(torch.FloatTensor(tgt_domain_code).to(self.device), requires_grad=False)

                # update DF for source site
                df_loss = 0
                if not self.flag:
                    self.set_requires_grad(net_fd, True)
                    src_domain_pred = net_fd(z.detach())
                    tgt_domain_pred = net_fd(z_t.detach())
                    df_loss_src = self.adv_loss(src_domain_pred, 1 - src_domain_code)
                    df_loss_tgt = self.adv_loss(tgt_domain_pred, 1 - tgt_domain_code)
                    df_loss = ((df_loss_src + df_loss_tgt) / 2)
                    df_loss.backward()
                    optimizer_fd.step()
                    df_loss = df_loss.detach().item()
                batch_loss_adv_d.append(df_loss)

                # update Recon
                self.set_requires_grad(net_fd, False)
                loss_adv_g = 0
                if not self.flag:
                    src_domain_pred = net_fd(z)
                    tgt_domain_pred = net_fd(z_t)
                    df_loss_src = self.adv_loss(src_domain_pred, src_domain_code)
                    df_loss_tgt = self.adv_loss(tgt_domain_pred, tgt_domain_code)
                    loss_adv_g = ((df_loss_src + df_loss_tgt) / 2).detach().item()  # expect: GG106
                batch_loss_adv_g.append(loss_adv_g)

                L1_loss = self.loss_func(output, target.to(self.device))
                if not self.flag:
                    loss = L1_loss + loss_adv_g  # also: GG106
                else:
                    loss = L1_loss
                batch_loss.append(loss.detach().item())
                loss.backward()
                optimizer.step()
                scheduler.step()
            epoch_loss.append(sum(batch_loss) / len(batch_loss))
            print('epoch', epoch, 'idx', idx, 'loss %.4f' % epoch_loss[-1],
                  'adv_g %.4f' % (sum(batch_loss_adv_g) / len(batch_loss_adv_g)))
        return net.state_dict(), sum(epoch_loss) / len(epoch_loss)


def make_site(n_batches, bs=2):
    return [(torch.randn(bs, 1, 8, 8), torch.randn(bs, 1, 8, 8)) for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    device = torch.device('cpu')
    args = {'local_ep': 2, 'lr': 1e-3}
    net = ReconNet()
    net_fd = FeatureDiscriminator()
    optimizer = torch.optim.RMSprop(net.parameters(), lr=args['lr'])
    optimizer_fd = torch.optim.Adam(net_fd.parameters(), lr=args['lr'])
    local = LocalUpdate_ad_da(args, device, make_site(3), make_site(3), optimizer, optimizer_fd, flag=False)
    for epoch in range(2):
        w, loss = local.train(net, net_fd, epoch, idx=0)


if __name__ == '__main__':
    main()
