# corpus: GAN Solver scores G(z) in the D loss without detach() and clears grads only once per iteration, so the D loss leaks into G's update
# source: https://github.com/yunjey/pytorch-tutorial/issues/56
import copy

import torch
import torch.nn as nn


class Solver:
    def __init__(self, latent_size=8, image_size=16, hidden_size=32, batch_size=8):
        self.latent_size, self.batch_size = latent_size, batch_size
        self.D = nn.Sequential(nn.Linear(image_size, hidden_size), nn.LeakyReLU(0.2),
                               nn.Linear(hidden_size, 1), nn.Sigmoid())
        self.G = nn.Sequential(nn.Linear(latent_size, hidden_size), nn.ReLU(),
                               nn.Linear(hidden_size, image_size), nn.Tanh())
        self.criterion = nn.BCELoss()
        self.d_optimizer = torch.optim.Adam(self.D.parameters(), lr=2e-4)
        self.g_optimizer = torch.optim.Adam(self.G.parameters(), lr=2e-4)

    def reset_grad(self):
        self.d_optimizer.zero_grad()
        self.g_optimizer.zero_grad()

    def train_step(self, images):
        real_labels = torch.ones(self.batch_size, 1)
        fake_labels = torch.zeros(self.batch_size, 1)
        self.reset_grad()

        # Train the discriminator
        outputs = self.D(images)
        d_loss_real = self.criterion(outputs, real_labels)
        z = torch.randn(self.batch_size, self.latent_size)
        fake_images = self.G(z)
        outputs = self.D(fake_images)  # expect: GG105
        d_loss_fake = self.criterion(outputs, fake_labels)
        d_loss = d_loss_real + d_loss_fake
        d_loss.backward()  # also: GG105
        self.d_optimizer.step()

        # Train the generator
        z = torch.randn(self.batch_size, self.latent_size)
        fake_images = self.G(z)
        outputs = self.D(fake_images)
        g_loss = self.criterion(outputs, real_labels)
        g_loss.backward()  # also: GG105
        self.g_optimizer.step()
        return d_loss.item(), g_loss.item()


def capture_g_grads(solver, extra_after_d_step=None):
    seen = {}
    d_step, g_step = solver.d_optimizer.step, solver.g_optimizer.step

    def d_spy(*a, **kw):
        out = d_step(*a, **kw)
        if extra_after_d_step:
            extra_after_d_step(solver)
        return out

    def g_spy(*a, **kw):
        seen["g"] = [p.grad.clone() for p in solver.G.parameters()]
        return g_step(*a, **kw)

    solver.d_optimizer.step, solver.g_optimizer.step = d_spy, g_spy
    return seen


if __name__ == "__main__":
    torch.manual_seed(0)
    solver = Solver()
    for _ in range(3):
        solver.train_step(torch.rand(8, 16) * 2 - 1)

    images = torch.rand(8, 16) * 2 - 1
    reference = copy.deepcopy(solver)
    used = capture_g_grads(solver)
    clean = capture_g_grads(reference, extra_after_d_step=lambda s: s.g_optimizer.zero_grad())
    torch.manual_seed(123)
    solver.train_step(images)
    torch.manual_seed(123)
    reference.train_step(images)
    # ground truth: G's update contains gradient of the discriminator's loss, not just of g_loss
    assert not all(torch.allclose(u, c, atol=1e-7) for u, c in zip(used["g"], clean["g"]))
