# corpus: GenB (generative bias model for VQA): the bias generator's adversarial loss is backpropagated with retain_graph=True and optim_G.step() updates genb in place before the discriminator loss, built on the same genb forward, is backpropagated, so the second backward needs genb weights that the step already changed
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/chojw/genb/issues/6
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)

Tensor = torch.FloatTensor
V_DIM, Q_DIM, N_ANS, HID = 12, 8, 6, 16


class BaseModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.v_proj = nn.Linear(V_DIM, HID)
        self.q_proj = nn.Linear(Q_DIM, HID)
        self.classifier = nn.Sequential(nn.ReLU(), nn.Linear(HID, N_ANS))

    def forward(self, v, q):
        return self.classifier(self.v_proj(v) * self.q_proj(q))


class GenB(nn.Module):
    def __init__(self):
        super().__init__()
        self.v_proj = nn.Linear(V_DIM, HID)
        self.q_proj = nn.Linear(Q_DIM, HID)
        self.noise_proj = nn.Linear(HID, HID)
        self.classifier = nn.Sequential(nn.ReLU(), nn.Linear(HID, N_ANS))

    def forward(self, v, q, gen=True):
        joint = self.v_proj(v) * self.q_proj(q)
        if gen:
            joint = joint + self.noise_proj(torch.randn_like(joint))
        return self.classifier(joint)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(N_ANS, HID), nn.LeakyReLU(0.2),
                                 nn.Linear(HID, 1), nn.Sigmoid())

    def forward(self, logits):
        return self.net(logits)


def compute_score_with_logits(logits, labels):
    logits = torch.argmax(logits, 1)
    one_hots = torch.zeros(*labels.size())
    one_hots.scatter_(1, logits.view(-1, 1), 1)
    return one_hots * labels


def calc_genb_loss(logits, bias, labels):
    gen_grad = torch.clamp(2 * labels * torch.sigmoid(-2 * labels * bias.detach()), 0, 1)
    loss = F.binary_cross_entropy_with_logits(logits, gen_grad)
    loss *= labels.size(1)
    return loss


def make_loader(n_batches=3, batch=4):
    loader = []
    for i in range(n_batches):
        v = torch.randn(batch, V_DIM)
        q = torch.randn(batch, Q_DIM)
        a = (torch.rand(batch, N_ANS) > 0.7).float()
        qid = torch.arange(i * batch, (i + 1) * batch)
        loader.append((v, q, a, qid))
    return loader


def train(model, genb, discriminator, train_loader, num_epochs):
    optim = torch.optim.Adamax(filter(lambda p: p.requires_grad, model.parameters()), lr=0.001)
    optim_G = torch.optim.Adamax(filter(lambda p: p.requires_grad, genb.parameters()), lr=0.001)
    optim_D = torch.optim.Adamax(filter(lambda p: p.requires_grad, discriminator.parameters()), lr=0.001)

    genb.train(True)
    discriminator.train(True)
    kld = nn.KLDivLoss(reduction='batchmean')
    bce = nn.BCELoss()

    for epoch in range(num_epochs):
        total_loss = 0
        train_score = 0
        for i, (v, q, a, qid) in enumerate(train_loader):
            v = v.requires_grad_()
            valid = Tensor(v.size(0), 1).fill_(1.0)
            fake = Tensor(v.size(0), 1).fill_(0.0)

            optim.zero_grad()
            pred = model(v, q)

            # train genb
            optim_G.zero_grad()
            optim_D.zero_grad()

            pred_g = genb(v, q, gen=True)
            g_loss = F.binary_cross_entropy_with_logits(pred_g, a, reduction='none').mean()
            g_loss *= a.size(1)

            vae_preds = discriminator(pred_g)
            main_preds = discriminator(pred)

            g_distill = kld(F.log_softmax(pred_g, 1), F.softmax(pred.detach(), 1))
            dsc_loss = bce(vae_preds, valid) + bce(main_preds, valid)

            g_loss += dsc_loss + g_distill * 5
            g_loss.backward(retain_graph=True)
            nn.utils.clip_grad_norm_(genb.parameters(), 0.25)
            optim_G.step()  # expect: GG111
            # done training genb

            # train the discriminator
            dsc_loss = bce(vae_preds, fake) + bce(main_preds, valid)
            dsc_loss.backward(retain_graph=True)  # also: GG111
            optim_D.step()

            # use genb to train the robust model
            genb.train(False)
            pred_g = genb(v, q, gen=False)
            genb_loss = calc_genb_loss(pred, pred_g, a)
            genb_loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optim.step()
            genb.train(True)

            total_loss += genb_loss.item() * q.size(0)
            train_score += compute_score_with_logits(pred, a.data).sum().item()
        print("epoch", epoch, "loss", total_loss, "score", train_score)


def main():
    model, genb, discriminator = BaseModel(), GenB(), Discriminator()
    train(model, genb, discriminator, make_loader(), num_epochs=2)


if __name__ == "__main__":
    main()
