# corpus: conditional DDPM (classifier-free guidance) trained one step, then its sample() loop, run without torch.no_grad(), stores intermediate x_i with .cpu().numpy() while x_i still carries the denoiser's graph
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/TeaPearce/Conditional_Diffusion_MNIST/issues/12
import numpy as np
import torch
import torch.nn as nn


def ddpm_schedules(beta1, beta2, T):
    beta_t = (beta2 - beta1) * torch.arange(0, T + 1, dtype=torch.float32) / T + beta1
    sqrt_beta_t = torch.sqrt(beta_t)
    alpha_t = 1 - beta_t
    log_alpha_t = torch.log(alpha_t)
    alphabar_t = torch.cumsum(log_alpha_t, dim=0).exp()
    return {
        "oneover_sqrta": 1 / torch.sqrt(alpha_t),
        "sqrt_beta_t": sqrt_beta_t,
        "sqrtab": torch.sqrt(alphabar_t),
        "sqrtmab": torch.sqrt(1 - alphabar_t),
        "mab_over_sqrtmab": (1 - alpha_t) / torch.sqrt(1 - alphabar_t),
    }


class ContextUnet(nn.Module):
    def __init__(self, in_dim=16, n_feat=32, n_classes=4):
        super().__init__()
        self.n_classes = n_classes
        self.net = nn.Sequential(nn.Linear(in_dim + 1 + n_classes, n_feat), nn.GELU(), nn.Linear(n_feat, in_dim))

    def forward(self, x, c, t, context_mask):
        c = nn.functional.one_hot(c, num_classes=self.n_classes).float()
        c = c * (1 - context_mask[:, None])
        return self.net(torch.cat([x, c, t[:, None]], dim=1))


class DDPM(nn.Module):
    def __init__(self, nn_model, betas, n_T, drop_prob=0.1):
        super().__init__()
        self.nn_model = nn_model
        for k, v in ddpm_schedules(betas[0], betas[1], n_T).items():
            self.register_buffer(k, v)
        self.n_T = n_T
        self.drop_prob = drop_prob
        self.loss_mse = nn.MSELoss()

    def forward(self, x, c):
        _ts = torch.randint(1, self.n_T + 1, (x.shape[0],))
        noise = torch.randn_like(x)
        x_t = self.sqrtab[_ts, None] * x + self.sqrtmab[_ts, None] * noise
        context_mask = torch.bernoulli(torch.zeros_like(c, dtype=torch.float32) + self.drop_prob)
        return self.loss_mse(noise, self.nn_model(x_t, c, _ts / self.n_T, context_mask))

    def sample(self, n_sample, size, guide_w=0.0):
        x_i = torch.randn(n_sample, size)
        c_i = torch.arange(0, self.nn_model.n_classes).repeat(n_sample // self.nn_model.n_classes)
        context_mask = torch.zeros_like(c_i, dtype=torch.float32)
        c_i = c_i.repeat(2)
        context_mask = torch.cat([context_mask, torch.ones_like(context_mask)])
        x_i_store = []
        for i in range(self.n_T, 0, -1):
            t_is = torch.tensor([i / self.n_T]).repeat(n_sample * 2)
            z = torch.randn(n_sample, size) if i > 1 else 0
            eps = self.nn_model(x_i.repeat(2, 1), c_i, t_is, context_mask)
            eps1, eps2 = eps[:n_sample], eps[n_sample:]
            eps = (1 + guide_w) * eps1 - guide_w * eps2
            x_i = self.oneover_sqrta[i] * (x_i - eps * self.mab_over_sqrtmab[i]) + self.sqrt_beta_t[i] * z
            if i % 5 == 0 or i == self.n_T or i < 3:
                x_i_store.append(x_i.cpu().numpy())  # expect: GG110
        return x_i, np.array(x_i_store)


def train_mnist_like():
    torch.manual_seed(0)
    n_T, n_classes, size = 20, 4, 16
    ddpm = DDPM(ContextUnet(size, 32, n_classes), betas=(1e-4, 0.02), n_T=n_T)
    optim = torch.optim.Adam(ddpm.parameters(), lr=1e-4)
    loss_ema = None
    for ep in range(2):
        ddpm.train()
        for _ in range(3):
            x, c = torch.randn(8, size), torch.randint(0, n_classes, (8,))
            optim.zero_grad()
            loss = ddpm(x, c)
            loss.backward()
            loss_ema = loss.item() if loss_ema is None else 0.95 * loss_ema + 0.05 * loss.item()
            optim.step()
        print(f"epoch {ep} loss: {loss_ema:.4f}")
        ddpm.eval()
        x_gen, x_gen_store = ddpm.sample(4 * n_classes, size, guide_w=2.0)
        print("samples", x_gen.shape, x_gen_store.shape)


if __name__ == "__main__":
    train_mnist_like()
