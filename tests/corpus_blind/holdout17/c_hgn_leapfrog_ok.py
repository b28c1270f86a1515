# corpus: Hamiltonian Generative Network rollout takes dp/dt = -dV/dq with torch.autograd.grad(create_graph=True, retain_graph=True) at every leapfrog step and backpropagates the reconstruction loss of the whole rollout; the force is part of the graph, so the potential network is trained through its own gradient (correct double backprop; only the potential's output bias gets no gradient, as an energy offset should not).
# source: https://github.com/CampusAI/Hamiltonian-Generative-Networks/blob/master/utilities/integrator.py
import torch
import torch.nn as nn
import torch.nn.functional as F


class Integrator:
    METHODS = ["Leapfrog"]

    def __init__(self, delta_t, method="Leapfrog"):
        if method not in self.METHODS:
            raise KeyError(method)
        self.delta_t = delta_t
        self.method = method

    def _get_grads(self, q, potential, remember_energy=False):
        energy_q = potential(x=q)
        dp_dt = -torch.autograd.grad(energy_q, q, create_graph=True, retain_graph=True,
                                     grad_outputs=torch.ones_like(energy_q))[0]
        if remember_energy:
            self.energy = energy_q.detach().cpu().numpy()
        return dp_dt

    def _lf_step(self, q, p, potential):
        dp_dt = self._get_grads(q=q, potential=potential, remember_energy=True)
        p_next_half = p + dp_dt * self.delta_t / 2
        q_next = q + p_next_half * self.delta_t
        dp_next_dt = self._get_grads(q=q_next, potential=potential)
        p_next = p_next_half + dp_next_dt * self.delta_t / 2
        return q_next, p_next

    def step(self, q, p, potential):
        if self.method == "Leapfrog":
            return self._lf_step(q=q, p=p, potential=potential)
        raise NotImplementedError


class EncoderNet(nn.Module):
    def __init__(self, seq_len, frame_dim, latent):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(seq_len * frame_dim, 32), nn.Tanh(), nn.Linear(32, 2 * latent))

    def forward(self, x):
        return self.net(x.flatten(1))


class TransformerNet(nn.Module):
    def __init__(self, latent):
        super().__init__()
        self.to_q = nn.Linear(2 * latent, latent)
        self.to_p = nn.Linear(2 * latent, latent)

    def forward(self, z):
        return self.to_q(z), self.to_p(z)


class HamiltonianNet(nn.Module):
    def __init__(self, latent):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 16), nn.Softplus(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


class DecoderNet(nn.Module):
    def __init__(self, latent, frame_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 16), nn.Tanh(), nn.Linear(16, frame_dim))

    def forward(self, q):
        return self.net(q)


class HGN(nn.Module):
    def __init__(self, encoder, transformer, hnn, decoder, integrator):
        super().__init__()
        self.encoder, self.transformer, self.hnn, self.decoder = encoder, transformer, hnn, decoder
        self.integrator = integrator

    def forward(self, rollout_batch, n_steps):
        q, p = self.transformer(self.encoder(rollout_batch))
        prediction = [self.decoder(q)]
        for _ in range(n_steps):
            q, p = self.integrator.step(q=q, p=p, potential=self.hnn)
            prediction.append(self.decoder(q))
        return torch.stack(prediction, dim=1)


class HgnTrainer:
    def __init__(self, hgn, lr=1e-3):
        self.hgn = hgn
        self.optimizer = torch.optim.Adam(hgn.parameters(), lr=lr)

    def training_step(self, rollouts):
        self.optimizer.zero_grad()
        prediction = self.hgn(rollouts, n_steps=rollouts.shape[1] - 1)
        loss = F.mse_loss(prediction, rollouts)
        loss.backward()
        hnn_grad = sum(p.grad.abs().sum() for p in self.hgn.hnn.parameters() if p.grad is not None)
        self.optimizer.step()
        return loss.item(), hnn_grad.item()


def make_rollouts(batch, seq_len, frame_dim):
    t = torch.linspace(0, 1, seq_len)
    phase = torch.rand(batch, 1, 1) * 6.28
    basis = torch.randn(1, 1, frame_dim)
    return torch.sin(6.0 * t.view(1, -1, 1) + phase) * basis


def main():
    torch.manual_seed(0)
    seq_len, frame_dim, latent = 5, 6, 2
    hgn = HGN(EncoderNet(seq_len, frame_dim, latent), TransformerNet(latent), HamiltonianNet(latent),
              DecoderNet(latent, frame_dim), Integrator(delta_t=0.125, method="Leapfrog"))
    trainer = HgnTrainer(hgn)
    for it in range(3):
        loss, hnn_grad = trainer.training_step(make_rollouts(4, seq_len, frame_dim))
        assert hnn_grad > 0, "potential network must receive gradient through dV/dq"
        print("iter", it, "loss", round(loss, 5), "|grad V|", round(hnn_grad, 6))


if __name__ == "__main__":
    main()
