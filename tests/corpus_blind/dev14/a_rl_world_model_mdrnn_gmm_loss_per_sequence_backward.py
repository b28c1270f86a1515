# corpus: World-models MDN-RNN trainer (ctallec/world-models trainmdrnn shape): get_loss returns a dict of losses whose GMM term (computed with reduce=False) is averaged only over the time dim, so the scaled total 'loss' is a per-sequence vector and loss.backward() is called on a non-scalar
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/ctallec/world-models/issues/18

import torch
import torch.nn as nn
import torch.nn.functional as F

LSIZE, ASIZE, RSIZE, NGAUSS = 8, 3, 32, 5
BSIZE, SEQ_LEN = 4, 10


def gmm_loss(batch, mus, sigmas, logpi, reduce=True):
    batch = batch.unsqueeze(-2)
    normal_dist = torch.distributions.Normal(mus, sigmas)
    g_log_probs = normal_dist.log_prob(batch)
    g_log_probs = logpi + torch.sum(g_log_probs, dim=-1)
    max_log_probs = torch.max(g_log_probs, dim=-1, keepdim=True)[0]
    g_log_probs = g_log_probs - max_log_probs
    g_probs = torch.exp(g_log_probs)
    probs = torch.sum(g_probs, dim=-1)
    log_prob = max_log_probs.squeeze() + torch.log(probs)
    if reduce:
        return -torch.mean(log_prob)
    return -log_prob


class MDRNN(nn.Module):
    def __init__(self, latents, actions, hiddens, gaussians):
        super().__init__()
        self.latents, self.gaussians = latents, gaussians
        self.rnn = nn.LSTM(latents + actions, hiddens)
        self.gmm_linear = nn.Linear(hiddens, (2 * latents + 1) * gaussians + 2)

    def forward(self, actions, latents):
        seq_len, bs = actions.size(0), actions.size(1)
        outs, _ = self.rnn(torch.cat([actions, latents], dim=-1))
        gmm_outs = self.gmm_linear(outs)
        stride = self.gaussians * self.latents
        mus = gmm_outs[:, :, :stride].view(seq_len, bs, self.gaussians, self.latents)
        sigmas = torch.exp(gmm_outs[:, :, stride:2 * stride]).view(seq_len, bs, self.gaussians, self.latents)
        pi = gmm_outs[:, :, 2 * stride:2 * stride + self.gaussians].view(seq_len, bs, self.gaussians)
        logpi = F.log_softmax(pi, dim=-1)
        rs = gmm_outs[:, :, -2]
        ds = gmm_outs[:, :, -1]
        return mus, sigmas, logpi, rs, ds


def to_latent(obs, next_obs, encoder):
    with torch.no_grad():
        return encoder(obs), encoder(next_obs)


def get_loss(mdrnn, latent_obs, action, reward, terminal, latent_next_obs, include_reward=False):
    latent_obs, action, reward, terminal, latent_next_obs = [
        arr.transpose(1, 0) for arr in [latent_obs, action, reward, terminal, latent_next_obs]]
    mus, sigmas, logpi, rs, ds = mdrnn(action, latent_obs)
    gmm = gmm_loss(latent_next_obs, mus, sigmas, logpi, reduce=False).mean(dim=0)
    bce = F.binary_cross_entropy_with_logits(ds, terminal)
    if include_reward:
        mse = F.mse_loss(rs, reward)
        scale = LSIZE + 2
    else:
        mse = 0
        scale = LSIZE + 1
    loss = (gmm + bce + mse) / scale
    return dict(gmm=gmm, bce=bce, mse=mse, loss=loss)


def data_pass(epoch, mdrnn, encoder, optimizer, n_batches=3):
    mdrnn.train()
    cum_loss = 0.0
    for i in range(n_batches):
        obs = torch.randn(BSIZE, SEQ_LEN, 16)
        action = torch.randn(BSIZE, SEQ_LEN, ASIZE)
        reward = torch.randn(BSIZE, SEQ_LEN)
        terminal = (torch.rand(BSIZE, SEQ_LEN) > 0.9).float()
        next_obs = torch.randn(BSIZE, SEQ_LEN, 16)
        latent_obs, latent_next_obs = to_latent(obs, next_obs, encoder)
        losses = get_loss(mdrnn, latent_obs, action, reward, terminal, latent_next_obs)
        optimizer.zero_grad()
        losses['loss'].backward()  # expect: GG109
        optimizer.step()
        cum_loss += losses['loss'].mean().item()
    print(f"epoch {epoch} loss {cum_loss / n_batches:.4f}")


def main():
    torch.manual_seed(0)
    encoder = nn.Linear(16, LSIZE)
    mdrnn = MDRNN(LSIZE, ASIZE, RSIZE, NGAUSS)
    optimizer = torch.optim.RMSprop(mdrnn.parameters(), lr=1e-3, alpha=.9)
    for epoch in range(2):
        data_pass(epoch, mdrnn, encoder, optimizer)


if __name__ == "__main__":
    main()
