# corpus: TorchRL-style Python-coded multi-layer GRU for a recurrent SAC actor: at episode boundaries the per-layer hidden states are reset with an in-place masked_fill_, but layer 1's hidden state was already saved as the input of layer 2's linear, so the actor loss backward finds it modified
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pytorch/rl/issues/1742
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class PythonGRU(nn.GRU):
    """Multi-step, multi-layer GRU coded in Python (compatible with vmap/compile, no cuDNN)."""

    @staticmethod
    def _gru_cell(x, hx, weight_ih, bias_ih, weight_hh, bias_hh):
        gate_x = F.linear(x, weight_ih, bias_ih)
        gate_h = F.linear(hx, weight_hh, bias_hh)
        i_r, i_i, i_n = gate_x.chunk(3, 1)
        h_r, h_i, h_n = gate_h.chunk(3, 1)
        resetgate = (i_r + h_r).sigmoid()
        inputgate = (i_i + h_i).sigmoid()
        newgate = (i_n + (resetgate * h_n)).tanh()
        return newgate + inputgate * (hx - newgate)

    def _gru(self, x, hx, done=None):
        h_t = list(hx.unbind(0))
        weights = [[getattr(self, name) for name in names] for names in self._all_weights]
        outputs = []
        for t, x_t in enumerate(x.unbind(1)):
            h_t_out = []
            for layer, (weight_ih, weight_hh, bias_ih, bias_hh) in enumerate(weights):
                _h_t = self._gru_cell(x_t, h_t[layer], weight_ih, bias_ih, weight_hh, bias_hh)
                h_t_out.append(_h_t)
                x_t = _h_t
            if done is not None:
                done_t = done[:, t]
                for _h in h_t_out:
                    _h.masked_fill_(done_t, 0.0)  # expect: GG107
            h_t = h_t_out
            outputs.append(x_t)
        return torch.stack(outputs, dim=1), torch.stack(h_t, 0)

    def forward(self, input, hx=None, done=None):
        if hx is None:
            hx = torch.zeros(self.num_layers, input.size(0), self.hidden_size)
        return self._gru(input, hx, done)


class RecurrentActor(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=16):
        super().__init__()
        self.gru = PythonGRU(obs_dim, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, n_actions)

    def forward(self, obs_seq, done_seq):
        out, _ = self.gru(obs_seq, done=done_seq)
        return F.log_softmax(self.head(out), dim=-1)


class QNet(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 16), nn.ReLU(), nn.Linear(16, n_actions))

    def forward(self, obs):
        return self.net(obs)


class DiscreteSACLoss:
    def __init__(self, actor, qvalue, alpha=0.2):
        self.actor, self.qvalue, self.alpha = actor, qvalue, alpha

    def actor_loss(self, batch):
        log_probs = self.actor(batch["observation"], batch["done"])
        with torch.no_grad():
            q = self.qvalue(batch["observation"])
        probs = log_probs.exp()
        return (probs * (self.alpha * log_probs - q)).sum(-1).mean()


class SequenceReplayBuffer:
    def __init__(self, n_traj=8, seq_len=6, obs_dim=4):
        g = torch.Generator().manual_seed(0)
        self.obs = torch.randn(n_traj, seq_len, obs_dim, generator=g)
        done = torch.zeros(n_traj, seq_len, 1, dtype=torch.bool)
        done[:, 2] = True
        self.done = done

    def sample(self, batch_size=4):
        idx = torch.randperm(self.obs.shape[0])[:batch_size]
        return {"observation": self.obs[idx], "done": self.done[idx]}


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    actor, qvalue = RecurrentActor(4, 3), QNet(4, 3)
    loss_module = DiscreteSACLoss(actor, qvalue)
    optim = torch.optim.Adam(actor.parameters(), lr=1e-3)
    rb = SequenceReplayBuffer()
    for i in range(3):
        batch = rb.sample()
        loss_actor = loss_module.actor_loss(batch)
        optim.zero_grad()
        loss_actor.backward()  # also: GG107
        optim.step()
        print("iter", i, "actor loss", round(loss_actor.item(), 4))


if __name__ == "__main__":
    main()
