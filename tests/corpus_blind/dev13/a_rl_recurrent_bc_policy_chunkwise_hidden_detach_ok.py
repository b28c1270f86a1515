# corpus: recurrent imitation-learning policy trained chunk by chunk with manual optimisation (Lightning training_step shape): the per-layer (cell, state) hiddens returned by policy.step are carried to the next chunk but immediately rebound to detached copies (None-safe), and zeroed every reset_every chunks for the short-history ablation; correct
# source: https://github.com/yulinzhouZYL/MTIL/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F


class RecurrentPolicy(nn.Module):
    def __init__(self, lowdim, rgb_dim, action_dim, hidden=24, n_layers=2):
        super().__init__()
        self.rgb_encoder = nn.Sequential(nn.Linear(rgb_dim, hidden), nn.ReLU())
        self.lowdim_encoder = nn.Linear(lowdim, hidden)
        self.cells = nn.ModuleList([nn.LSTMCell(2 * hidden if i == 0 else hidden, hidden) for i in range(n_layers)])
        self.action_head = nn.Linear(hidden, action_dim)

    def step(self, lowdim, rgb, hiddens):
        x = torch.cat([self.lowdim_encoder(lowdim), self.rgb_encoder(rgb)], dim=-1)
        new_hiddens = []
        for cell, hc in zip(self.cells, hiddens):
            h, c = cell(x, None if hc[0] is None else (hc[1], hc[0]))
            new_hiddens.append((c, h))
            x = h
        return self.action_head(x), new_hiddens


class ImitationModule:
    def __init__(self, policy, n_layers, lr=1e-3, reset_every=None):
        self.policy = policy
        self.n_layers = n_layers
        self.reset_every = reset_every
        self.hiddens = [(None, None)] * n_layers
        self.optimizer = torch.optim.AdamW(policy.parameters(), lr=lr)

    def manual_backward(self, loss):
        loss.backward()

    def training_step(self, batch, batch_idx):
        lowdim, rgb, actions = batch
        if self.reset_every is not None and batch_idx % self.reset_every == 0:
            self.hiddens = [(None, None)] * self.n_layers
        concat_lowdim = torch.cat([lowdim, torch.sin(lowdim)], dim=-1)
        pred_action, self.hiddens = self.policy.step(concat_lowdim, rgb, self.hiddens)
        self.hiddens = [
            ((c.detach() if c is not None else None), (s.detach() if s is not None else None))
            for (c, s) in self.hiddens
        ]
        loss = F.mse_loss(pred_action, actions)
        self.optimizer.zero_grad()
        self.manual_backward(loss)
        torch.nn.utils.clip_grad_norm_(self.policy.parameters(), 1.0)
        self.optimizer.step()
        return loss


def make_demo_chunks(n_chunks, batch=4, lowdim=3, rgb_dim=10, action_dim=2):
    chunks = []
    for _ in range(n_chunks):
        lowdim_obs = torch.randn(batch, lowdim)
        rgb = torch.randn(batch, rgb_dim)
        actions = torch.tanh(lowdim_obs[:, :action_dim] + 0.1 * rgb[:, :action_dim])
        chunks.append((lowdim_obs, rgb, actions))
    return chunks


def main():
    torch.manual_seed(0)
    for reset_every in (None, 5):
        policy = RecurrentPolicy(lowdim=6, rgb_dim=10, action_dim=2)
        module = ImitationModule(policy, n_layers=2, reset_every=reset_every)
        losses = []
        for epoch in range(2):
            for batch_idx, batch in enumerate(make_demo_chunks(12)):
                losses.append(module.training_step(batch, batch_idx).item())
        print(f"reset_every={reset_every} first {losses[0]:.3f} last {losses[-1]:.3f}")


if __name__ == "__main__":
    main()
