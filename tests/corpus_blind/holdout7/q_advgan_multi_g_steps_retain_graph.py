# corpus: AdvGAN attack trainer with n_steps_G > 1 reuses the perturbation/adv_images built in the discriminator loop for every generator step; retain_graph=True on loss_G.backward() hides the freed-graph error until optimizer_G.step() changes the generator weights that graph saved
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/GiorgosKarantonis/Adversarial-Attacks-with-Relativistic-AdvGAN/issues/8
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, dim), nn.Tanh())

    def forward(self, x):
        return self.net(x)


class Discriminator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        logits = self.net(x)
        return logits, torch.sigmoid(logits)


class AdvGAN_Attack:
    def __init__(self, model, n_labels, dim, lr, l_inf_bound, alpha, beta, gamma, kappa, c,
                 n_steps_D, n_steps_G):
        self.model = model
        self.n_labels = n_labels
        self.l_inf_bound = l_inf_bound
        self.alpha, self.beta, self.gamma, self.kappa, self.c = alpha, beta, gamma, kappa, c
        self.n_steps_D = n_steps_D
        self.n_steps_G = n_steps_G
        self.G = Generator(dim)
        self.D = Discriminator(dim)
        self.optimizer_G = torch.optim.Adam(self.G.parameters(), lr=lr)
        self.optimizer_D = torch.optim.Adam(self.D.parameters(), lr=lr)

    def train_batch(self, x, labels):
        # optimize D
        for i in range(self.n_steps_D):
            perturbation = self.G(x)
            adv_images = torch.clamp(perturbation, -self.l_inf_bound, self.l_inf_bound) + x
            adv_images = torch.clamp(adv_images, 0, 1)

            self.D.zero_grad()
            logits_real, pred_real = self.D(x)
            logits_fake, pred_fake = self.D(adv_images.detach())
            loss_D_real = F.mse_loss(pred_real, torch.ones_like(pred_real))
            loss_D_fake = F.mse_loss(pred_fake, torch.zeros_like(pred_fake))
            loss_D = loss_D_fake + loss_D_real
            loss_D.backward()
            self.optimizer_D.step()

        # optimize G
        for i in range(self.n_steps_G):
            self.G.zero_grad()

            perturbation_norm = torch.mean(torch.norm(perturbation.view(perturbation.shape[0], -1), 2, dim=1))
            loss_hinge = torch.max(torch.zeros(1), perturbation_norm - self.c)

            logits_model = self.model(adv_images)
            probs_model = F.softmax(logits_model, dim=1)
            onehot_labels = torch.eye(self.n_labels)[labels]
            real_class_prob = torch.sum(onehot_labels * probs_model, dim=1)
            target_class_prob, _ = torch.max((1 - onehot_labels) * probs_model - onehot_labels * 10000, dim=1)
            loss_adv = torch.max(real_class_prob - target_class_prob, self.kappa * torch.ones_like(target_class_prob))
            loss_adv = torch.sum(loss_adv)

            logits_fake, pred_fake = self.D(adv_images)
            loss_G_gan = F.mse_loss(pred_fake, torch.ones_like(pred_fake))

            loss_G = self.gamma * loss_adv + self.alpha * loss_G_gan + self.beta * loss_hinge
            loss_G.backward(retain_graph=True)  # expect: GG302
            self.optimizer_G.step()

        return loss_D.item(), loss_G.item(), loss_G_gan.item(), loss_hinge.item(), loss_adv.item()

    def train(self, train_dataloader, epochs):
        for epoch in range(1, epochs + 1):
            loss_D_sum, loss_G_sum = 0, 0
            for images, labels in train_dataloader:
                loss_D_batch, loss_G_batch, _, _, _ = self.train_batch(images, labels)
                loss_D_sum += loss_D_batch
                loss_G_sum += loss_G_batch
            print('Epoch {}: Loss D: {}, Loss G: {}'.format(
                epoch, loss_D_sum / len(train_dataloader), loss_G_sum / len(train_dataloader)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--l_inf_bound", type=float, default=0.3)
    parser.add_argument("--n_steps_D", type=int, default=1)
    parser.add_argument("--n_steps_G", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    dim, n_labels = 20, 4
    target_model = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, n_labels))
    for p in target_model.parameters():
        p.requires_grad_(False)
    target_model.eval()
    attack = AdvGAN_Attack(target_model, n_labels, dim, args.lr, args.l_inf_bound, alpha=1.0, beta=1.0,
                           gamma=10.0, kappa=0.0, c=0.1, n_steps_D=args.n_steps_D, n_steps_G=args.n_steps_G)
    loader = [(torch.rand(8, dim), torch.randint(0, n_labels, (8,))) for _ in range(3)]
    attack.train(loader, epochs=1)


if __name__ == "__main__":
    main()
