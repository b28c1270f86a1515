# corpus: GAN-inversion refiner builds the latent gradient once with create_graph=True and takes each Hessian row with retain_graph=True; no weights change between the row backwards, so reuse is legitimate (correct)
# source: https://github.com/teddykoker/torchsort/issues/69
import torch
import torch.nn as nn


def compute_hessian(inputs, outputs):
    grads = torch.autograd.grad(outputs, inputs, create_graph=True)[0]
    hessian_rows = []
    for grad_elem in grads:
        hessian_row = torch.autograd.grad(grad_elem, inputs, retain_graph=True)[0]
        hessian_rows.append(hessian_row)
    return grads.detach(), torch.stack(hessian_rows)


class LatentInverter:
    """Recovers the latent code of a target sample with damped Newton steps."""

    def __init__(self, generator, latent_dim, damping=1e-1):
        self.generator = generator
        self.latent_dim = latent_dim
        self.damping = damping
        for p in self.generator.parameters():
            p.requires_grad_(False)

    def reconstruction_loss(self, z, target):
        return ((self.generator(z) - target) ** 2).sum() + 1e-3 * (z ** 2).sum()

    def newton_step(self, z, target):
        z = z.detach().requires_grad_(True)
        loss = self.reconstruction_loss(z, target)
        grad, hess = compute_hessian(z, loss)
        eye = torch.eye(self.latent_dim)
        delta = torch.linalg.solve(hess + self.damping * eye, grad)
        return (z - delta).detach(), loss.item()

    def invert(self, target, steps=5):
        z = torch.zeros(self.latent_dim)
        history = []
        for _ in range(steps):
            z, loss = self.newton_step(z, target)
            history.append(loss)
        return z, history


def main():
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 8))
    with torch.no_grad():
        z_true = torch.randn(3) * 0.5
        target = generator(z_true)
    inverter = LatentInverter(generator, latent_dim=3)
    z_hat, history = inverter.invert(target)
    print("loss history", [round(h, 5) for h in history])
    print("z_true", z_true.tolist(), "z_hat", z_hat.tolist())


if __name__ == "__main__":
    main()
